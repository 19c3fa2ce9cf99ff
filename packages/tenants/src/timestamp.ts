/** node-postgres and PGlite both parse timestamptz into a Date; records carry ISO strings, as JSON would. */
export function timestamp(value: Date | string): string {
  return new Date(value).toISOString();
}
