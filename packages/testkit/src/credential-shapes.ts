import { type ZodType, z } from "zod";

/** One credential field as a schema takes it, or as a platform guide asks for it. */
export interface CredentialShape {
  name: string;
  optional: boolean;
  list: boolean;
  choices: string[];
}

interface ObjectSchema {
  type?: string;
  properties?: Record<string, { type?: string; enum?: string[] }>;
  required?: string[];
  anyOf?: ObjectSchema[];
}

/** Every form of credentials a schema accepts (a union accepts several), each as its fields sorted by name. */
export function credentialShapes(schema: ZodType): CredentialShape[][] {
  const root = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as ObjectSchema;
  return (root.anyOf ?? [root]).map((form) =>
    sortShapes(
      Object.entries(form.properties ?? {}).map(([name, property]) => ({
        name,
        optional: !(form.required ?? []).includes(name),
        list: property.type === "array",
        choices: property.enum ?? [],
      })),
    ),
  );
}

export function sortShapes(shapes: CredentialShape[]): CredentialShape[] {
  return [...shapes].sort((a, b) => a.name.localeCompare(b.name));
}
