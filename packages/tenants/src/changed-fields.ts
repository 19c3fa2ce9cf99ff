/** The keys whose values differ between two flat records, as `<prefix>.<key>`; removed keys count as changed. */
export function changedFields(prefix: string, before: object, after: object): string[] {
  const was = before as Record<string, unknown>;
  const now = after as Record<string, unknown>;
  const keys = new Set([...Object.keys(was), ...Object.keys(now)]);
  return [...keys]
    .filter((key) => JSON.stringify(was[key]) !== JSON.stringify(now[key]))
    .map((key) => `${prefix}.${key}`);
}
