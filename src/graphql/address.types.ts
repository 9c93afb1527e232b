import { Field, InputType } from 'type-graphql';
import { IsOptional, IsString, Length } from 'class-validator';

/**
 * The street, city, state code and postal code of a postal address, as the gateway takes them (card and
 * bank-account checks, transfer parties). Each address input extends it with its own countryCode; no field
 * takes this type itself, so it is not in the schema (TypeGraphQL emits only reachable types).
 */
@InputType()
export abstract class PostalAddressFields {
  @Field({ description: 'First address line (1 to 200 characters).' }) @IsString() @Length(1, 200, { message: 'line1 must be 1 to 200 characters' }) line1!: string;
  @Field({ nullable: true, description: 'Second address line (at most 200 characters, optional).' }) @IsOptional() @IsString() @Length(0, 200, { message: 'line2 must be at most 200 characters' }) line2?: string;
  @Field({ description: 'City (1 to 100 characters).' }) @IsString() @Length(1, 100, { message: 'city must be 1 to 100 characters' }) city!: string;
  @Field({ description: 'State or region code, e.g. "CA".' }) @IsString() @Length(1, 64, { message: 'stateCode must be 1 to 64 characters' }) stateCode!: string;
  @Field({ description: 'Postal code (1 to 16 characters).' }) @IsString() @Length(1, 16, { message: 'zipCode must be 1 to 16 characters' }) zipCode!: string;
}
