/** The SCIM 2.0 schema and message URNs the SCIM specs send and expect (RFC 7643, RFC 7644), and the shapes of meta values. */
export const SCIM = {
  USER: 'urn:ietf:params:scim:schemas:core:2.0:User',
  GROUP: 'urn:ietf:params:scim:schemas:core:2.0:Group',
  ENTERPRISE: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User',
  PATCH_OP: 'urn:ietf:params:scim:api:messages:2.0:PatchOp',
  LIST: 'urn:ietf:params:scim:api:messages:2.0:ListResponse',
  ERROR: 'urn:ietf:params:scim:api:messages:2.0:Error',
} as const;

/** `meta.created` / `meta.lastModified`: RFC 3339 to the millisecond. */
export const SCIM_TIME = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
/** `meta.version` and the ETag header: a weak entity tag. */
export const SCIM_VERSION = expect.stringMatching(/^W\/"[0-9a-z]+"$/);
