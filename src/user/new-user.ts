import { randomUUID } from 'node:crypto';
import { UserEntity } from './user.entity';

export interface NewUserInput {
  sectorId: string;
  email: string;
  username?: string;
  name?: string;
  passwordHash: string | null;
  isAdmin: boolean;
  emailVerified?: boolean;
  /** A signed-in admin of the sector chose the address (it may then receive recovery links unverified). */
  emailAdminSet?: boolean;
}

/** A user row ready to insert; the username defaults to the email. */
export function newUser(input: NewUserInput): UserEntity {
  const user = new UserEntity();
  user.id = randomUUID();
  user.sectorId = input.sectorId;
  user.email = input.email.trim();
  user.username = (input.username ?? input.email).trim();
  user.name = input.name ?? '';
  user.passwordHash = input.passwordHash;
  user.isAdmin = input.isAdmin;
  user.emailVerified = input.emailVerified ?? false;
  user.emailAdminSet = (input.emailAdminSet ?? false) && user.email !== '';
  return user;
}
