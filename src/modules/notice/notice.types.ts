import { Field, ID, InputType, ObjectType, registerEnumType } from 'type-graphql';
import { IsEnum, IsString, Length } from 'class-validator';

export enum NoticeSeverity {
  INFO = 'INFO',
  WARNING = 'WARNING',
  CRITICAL = 'CRITICAL',
}
registerEnumType(NoticeSeverity, {
  name: 'NoticeSeverity',
  description: 'How prominently apps should show a notice.',
  valuesConfig: {
    INFO: { description: 'For information, e.g. planned maintenance: show unobtrusively.' },
    WARNING: { description: 'Something works worse than usual, e.g. slow payouts: show visibly.' },
    CRITICAL: { description: 'Something does not work, e.g. transfers are paused: show prominently.' },
  },
});

@ObjectType({ description: 'An operator message pushed to every connected app (e.g. a maintenance banner).' })
export class SystemNotice {
  @Field(() => ID, { description: 'The notice id.' })
  id!: string;

  @Field({ description: 'The text to show.' })
  message!: string;

  @Field(() => NoticeSeverity, { description: 'How prominently to show it.' })
  severity!: NoticeSeverity;

  @Field({ description: 'When it was published.' })
  publishedAt!: Date;
}

@InputType({ description: 'A notice to broadcast to connected apps.' })
export class PublishSystemNoticeInput {
  @Field({ description: '1 to 500 characters.' })
  @IsString()
  @Length(1, 500, { message: 'message must be 1 to 500 characters' })
  message!: string;

  @Field(() => NoticeSeverity, { defaultValue: NoticeSeverity.INFO, description: 'INFO (default), WARNING or CRITICAL.' })
  @IsEnum(NoticeSeverity, { message: 'severity must be INFO, WARNING or CRITICAL' })
  severity!: NoticeSeverity;
}
