import { ApiProperty } from '@nestjs/swagger';
import { IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { AgeAssuranceMessages } from '@studio/contracts';

export class CardCheckParams {
  @ApiProperty({ description: "The Checkout Session's id (cs_...)" })
  @IsString()
  @Matches(/^cs_[A-Za-z0-9_]{1,250}$/, { message: 'Not a card check id' })
  sessionId!: string;
}

export class TestCardDto {
  @ApiProperty({ description: "One of Stripe's test card numbers shown on the test page" })
  @IsString()
  @MaxLength(32)
  cardNumber!: string;
}

export class ManualAgeCheckDto {
  @ApiProperty({ description: 'What was checked, outside the studio (never the document itself)' })
  @IsString()
  @MinLength(10, { message: AgeAssuranceMessages.reasonRequired })
  @MaxLength(500)
  reason!: string;
}

export class StaffUsernameParams {
  @ApiProperty()
  @IsString()
  @MaxLength(64)
  username!: string;
}

export class ProviderCheckParams {
  @ApiProperty({ description: "The provider's id of the check (Persona's inquiry id, inq_...)" })
  @IsString()
  @Matches(/^inq_[A-Za-z0-9]{1,64}$/, { message: 'Not an age check id' })
  reference!: string;
}
