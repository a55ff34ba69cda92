/**
 * The issuer of a sector's OpenID Provider, `{PUBLIC_URL}/oidc/{tenant slug}/{sector slug}`
 * (docs/api.md, "Integrate an app"), as the list of the sector's apps answers it,
 * and its discovery document's URL.
 */
export interface IssuerInfo {
  issuer: string;
  discovery: string;
}

export function issuerInfo(issuer: string): IssuerInfo {
  return { issuer, discovery: `${issuer}/.well-known/openid-configuration` };
}
