import { ensureConsoleBundle } from "./console-bundle.ts";

/** `npm run build -w @resident/admin`: the bundle the server would otherwise build at its first start. */
const dir = await ensureConsoleBundle({ onBuild: () => console.log("building the admin console") });
console.log(`admin console: ${dir}`);
