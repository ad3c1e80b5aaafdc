import 'reflect-metadata';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsInt, IsNotEmpty, IsNumber, IsOptional, IsString, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import { A2aSkillHandler, AgentSkill, artifact, complete, type SkillContext, type SkillEvent } from '../../libs/a2a/src/index.js';

/** Typed-input fixtures: a nested DTO (a trip), a flat one (a pizza order), and the skills that take them. */

export class TripTraveller {
  @IsString()
  @IsNotEmpty()
  @MaxLength(50)
  name!: string;

  @IsInt()
  @Min(0)
  @Max(130)
  age!: number;
}

export class TripBudget {
  @IsNumber()
  @Min(0)
  amount!: number;

  @IsIn(['EUR', 'USD'])
  currency!: string;
}

export class TripInput {
  @IsString()
  @IsNotEmpty()
  destination!: string;

  /** A class default: absent from the input, it is 1 (and optional in the schema). */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(30)
  nights: number = 1;

  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(5)
  @ValidateNested({ each: true })
  @Type(() => TripTraveller)
  travellers!: TripTraveller[];

  @IsOptional()
  @ValidateNested()
  @Type(() => TripBudget)
  budget?: TripBudget;
}

export class PizzaOrder {
  @IsIn(['margherita', 'diavola'])
  pizza!: string;

  @IsInt()
  @Min(1)
  @Max(10)
  quantity!: number;
}

/** "trip to Lisbon, 3 nights, Ada:36, Alan:41": the destination, nights and travellers, as plain values. */
export function parseTrip(text: string): unknown {
  const match = /^trip to ([^,]+), (\d+) nights?, (.+)$/.exec(text.trim());
  if (!match) return {};
  const travellers = match[3].split(',').map((entry) => {
    const [name, age] = entry.trim().split(':');
    return { name, age: Number(age) };
  });
  return { destination: match[1], nights: Number(match[2]), travellers };
}

export const TRIP_SKILL_ID = 'plan-trip';
export const PIZZA_SKILL_ID = 'order-pizza';
export const PLAIN_SKILL_ID = 'plain';

/** Mode 'reject', nested DTO, text parser. Answers with what it got, and whether it got class instances. */
@AgentSkill({ id: TRIP_SKILL_ID, name: 'Plan a trip', description: 'Plans a trip', tags: ['trip'], inputModes: ['text/plain', 'application/json'], input: TripInput, parseText: parseTrip })
export class TripSkill extends A2aSkillHandler<TripInput> {
  readonly inputs: TripInput[] = [];

  handle(context: SkillContext<TripInput>): SkillEvent[] {
    const { input } = context;
    this.inputs.push(input);
    const instances = input instanceof TripInput && input.travellers.every((t) => t instanceof TripTraveller) && (input.budget === undefined || input.budget instanceof TripBudget);
    return [artifact({ data: { instances, input: JSON.parse(JSON.stringify(input)) } }, { name: 'plan' }), complete(`${input.nights} nights in ${input.destination}`)];
  }
}

/** Mode 'input-required', data parts only. */
@AgentSkill({ id: PIZZA_SKILL_ID, name: 'Order pizza', description: 'Orders pizza', tags: ['food'], input: PizzaOrder, onInvalidInput: 'input-required' })
export class PizzaSkill extends A2aSkillHandler<PizzaOrder> {
  readonly inputs: PizzaOrder[] = [];

  handle(context: SkillContext<PizzaOrder>): SkillEvent[] {
    this.inputs.push(context.input);
    return [complete(`${context.input.quantity} × ${context.input.pizza}`)];
  }
}

/** No typed input: `context.input` is undefined. */
@AgentSkill({ id: PLAIN_SKILL_ID, name: 'Plain', description: 'Takes text', tags: ['text'], default: true })
export class PlainSkill extends A2aSkillHandler {
  handle(context: SkillContext): SkillEvent[] {
    return [complete(context.input === undefined ? 'no input' : 'input!')];
  }
}
