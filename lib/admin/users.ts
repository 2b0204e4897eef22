import { hashPassword, MIN_PASSWORD_LENGTH } from "@/lib/auth/passwords";
import { db } from "@/lib/db/client";
import { addProjectMemberIn, type MemberRole } from "@/lib/projects/members";

/**
 * Operators create user accounts (the portal signs them in). A user created with a project joins
 * it in the same transaction (`project.member-joined`, invited-by null), so a refused membership
 * leaves no user behind.
 */
export interface NewUser {
  email: string;
  password: string;
  name: string;
  membership?: { projectId: string; role: MemberRole; permissions?: readonly string[] };
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export async function createUser(input: NewUser): Promise<{ userId: string }> {
  const email = input.email.trim().toLowerCase();
  if (!EMAIL.test(email) || email.length > 254) throw new Error(`--email must be an email address`);
  if (input.password.length < MIN_PASSWORD_LENGTH) throw new Error(`--password must have at least ${MIN_PASSWORD_LENGTH} characters`);
  const name = input.name.trim();
  if (name === "" || name.length > 200) throw new Error("--name must be 1 to 200 characters");
  const passwordHash = await hashPassword(input.password);
  return db().$transaction(async (tx) => {
    if (await tx.user.findUnique({ where: { email }, select: { id: true } })) throw new Error(`A user with email ${email} already exists`);
    const user = await tx.user.create({ data: { email, name, passwordHash } });
    if (input.membership) {
      await addProjectMemberIn(tx, { ...input.membership, userId: user.id, invitedByUserId: null });
    }
    return { userId: user.id };
  });
}

/**
 * Sets a user's password (found by email) and ends their sessions, so a leaked or initial password
 * stops working everywhere at once.
 */
export async function setUserPassword(input: { email: string; password: string }): Promise<{ userId: string }> {
  const email = input.email.trim().toLowerCase();
  if (input.password.length < MIN_PASSWORD_LENGTH) throw new Error(`--password must have at least ${MIN_PASSWORD_LENGTH} characters`);
  const passwordHash = await hashPassword(input.password);
  return db().$transaction(async (tx) => {
    const user = await tx.user.findUnique({ where: { email }, select: { id: true } });
    if (!user) throw new Error(`No user with email ${email}`);
    await tx.user.update({ where: { id: user.id }, data: { passwordHash } });
    await tx.session.deleteMany({ where: { userId: user.id } });
    return { userId: user.id };
  });
}
