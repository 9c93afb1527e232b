import { Field, ID, ObjectType, registerEnumType } from 'type-graphql';
import { ROLES, type Role } from '../../auth/auth.types';

const RoleEnum = Object.fromEntries(ROLES.map((r) => [r.toUpperCase(), r])) as Record<Uppercase<Role>, Role>;
registerEnumType(RoleEnum, {
  name: 'Role',
  description:
    'What the caller may do: customers own transfers, back-office and admins see all. Every operation states its roles: without a valid bearer token it answers extensions.code UNAUTHENTICATED, with a role it does not list FORBIDDEN. Every mutation is rate-limited per caller and operation (RATE_LIMITED with extensions.retryAfterSeconds).',
  valuesConfig: {
    CUSTOMER: { description: "An app user: sends money and sees only what it owns (others' ids answer NOT_FOUND)." },
    BACKOFFICE: { description: 'Operations staff: read everything, capture and void transfers, onboarding at the platform.' },
    ADMIN: { description: 'Back-office rights plus agents, webhooks, system notices and money-moving platform operations.' },
  },
});

@ObjectType({ description: 'The authenticated caller.' })
export class Viewer {
  @Field(() => ID, { description: 'The user id (the token subject).' })
  id!: string;

  @Field(() => RoleEnum, { description: 'The role from the token.' })
  role!: Role;
}
