#!/usr/bin/env node
import { TenantDirectory } from '../tenancy/tenant-directory';
import { KeyService } from '../keys/key.service';
import { report, runWithApp } from './run-with-app';

/**
 * `npm run keys:rotate -- <tenant slug>`: gives the tenant a new signing key. The old
 * key stays in the JWK Set until every token it signed has expired; running
 * instances pick the new key up within seconds.
 */
void runWithApp('RotateKey', async (app) => {
  const slug = process.argv[2];
  if (!slug) throw new Error('Usage: npm run keys:rotate -- <tenant slug>');
  const tenant = await app.get(TenantDirectory).tenantBySlug(slug);
  if (!tenant) throw new Error(`No tenant with slug "${slug}"`);
  const { oldKid, newKid } = await app.get(KeyService).rotate(tenant.id);
  report(`Rotated the signing key of tenant "${slug}": ${oldKid} -> ${newKid} (the old key stays published until its tokens expire)`);
});
