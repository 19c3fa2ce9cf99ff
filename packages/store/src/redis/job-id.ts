/*
 * BullMQ refuses custom job ids that contain ':' or read as an integer ("Custom Id cannot contain :" / "cannot be
 * integers"), and core's ids look like `event:<workspaceId>:<eventId>`. So ':' and '%', and a leading digit or
 * '-', are percent-escaped as in a URL; the handler gets the original id back.
 */

export function toJobId(id: string): string {
  return id.replace(/[%:]|^[-\d]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
}

export function fromJobId(jobId: string): string {
  return jobId.replace(/%([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}
