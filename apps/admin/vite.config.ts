import { defaultClientConditions, defineConfig } from "vite";

/** Shared by `npm run build -w @resident/admin`, `npm run dev -w @resident/admin` and the server's on-demand build. */
export default defineConfig({
  base: "/admin/",
  // The admin API's client (@resident/admin-api) is bundled from its TypeScript source, as vitest runs it.
  resolve: { conditions: ["source", ...defaultClientConditions] },
  build: {
    target: "es2022",
    // The polyfill would be an inline script, which the console's CSP refuses; every browser it targets has preload.
    modulePreload: { polyfill: false },
    // Nothing becomes a data: URI the CSP would have to allow.
    assetsInlineLimit: 0,
  },
  // `npm run dev`: the console from source, the API from a server started with `npm start`.
  server: { proxy: { "/admin/api": "http://localhost:3000" } },
});
