import { Field, InputType } from 'type-graphql';
import { IsISO31661Alpha2, IsOptional, IsString, Length } from 'class-validator';
import type { PostalAddress } from '../shared/address';

/**
 * The one postal address of the API: every operation that takes an address takes this type. The service
 * derives what each upstream wants from it (state name or code, zip or postal code, alpha-2 or alpha-3).
 */
@InputType({ description: 'A postal address (the same shape wherever an address is taken). countryCode is ISO 3166-1 alpha-2.' })
export class AddressInput implements PostalAddress {
  @Field({ description: 'First address line (1 to 200 characters).' })
  @IsString()
  @Length(1, 200, { message: 'line1 must be 1 to 200 characters' })
  line1!: string;
  @Field({ nullable: true, description: 'Second address line (at most 200 characters, optional).' })
  @IsOptional()
  @IsString()
  @Length(0, 200, { message: 'line2 must be at most 200 characters' })
  line2?: string;
  @Field({ description: 'City (1 to 100 characters).' })
  @IsString()
  @Length(1, 100, { message: 'city must be 1 to 100 characters' })
  city!: string;
  @Field({ description: 'State, province or region as written, e.g. "California" (1 to 100 characters).' })
  @IsString()
  @Length(1, 100, { message: 'region must be 1 to 100 characters' })
  region!: string;
  @Field({
    nullable: true,
    description:
      'Code of the region, e.g. "CA" or "SP" (1 to 10 characters; personRequirements gives the pattern of a country). Optional: region stands in for it when absent.',
  })
  @IsOptional()
  @IsString()
  @Length(1, 10, { message: 'regionCode must be 1 to 10 characters' })
  regionCode?: string;
  @Field({ description: 'Postal code (1 to 16 characters; personRequirements gives the pattern of a country).' })
  @IsString()
  @Length(1, 16, { message: 'postalCode must be 1 to 16 characters' })
  postalCode!: string;
  @Field({ description: 'ISO 3166-1 alpha-2 country, e.g. "US".' })
  @IsISO31661Alpha2({ message: 'countryCode must be an ISO 3166-1 alpha-2 code such as US' })
  countryCode!: string;
}
