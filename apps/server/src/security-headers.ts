import type { FastifyHelmetOptions } from "@fastify/helmet";

/**
 * Helmet's headers on every answer under /admin, with a content security policy that allows the admin console exactly what it
 * is: scripts, styles, images and API calls from this origin, nothing inline, no frames, no plugins.
 */
export const securityHeaders: FastifyHelmetOptions = {
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'none'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'"],
      imgSrc: ["'self'"],
      connectSrc: ["'self'"],
      manifestSrc: ["'self'"],
      baseUri: ["'none'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
    },
  },
};
