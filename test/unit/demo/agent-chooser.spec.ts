import type { AgentCard } from '../../../libs/a2a/src/index.js';
import type { AgentCandidate, AgentNeed } from '../../../apps/travel-orchestrator/src/agent-chooser.js';
import {
  chooserPrompt,
  PromptedAgentChooser,
  type ChooserModel,
} from '../../../apps/travel-orchestrator/src/prompted-agent.chooser.js';
import {
  accepts,
  eligibleSkills,
  RuleBasedAgentChooser,
} from '../../../apps/travel-orchestrator/src/rule-based-agent.chooser.js';
import {
  FLIGHT_NEED,
  FREE_DAYS_NEED,
  HOTEL_NEED,
  TRIP_NEEDS,
} from '../../../apps/travel-orchestrator/src/trip.needs.js';

/** A card as an agent would publish it, with only what the chooser reads varied. */
function card(name: string, skills: AgentCard['skills'], extra: Partial<AgentCard> = {}): AgentCard {
  return {
    name,
    description: `${name} (sample)`,
    version: '1.0.0',
    supportedInterfaces: [
      { url: `http://${name}.example/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    ],
    capabilities: { streaming: true },
    defaultInputModes: ['application/json'],
    defaultOutputModes: ['application/json'],
    skills,
    ...extra,
  };
}

const calendar = card(
  'Calendar agent',
  [
    {
      id: 'find-free-days',
      name: 'Find free days',
      description: "Finds a user's free days in a week",
      tags: ['calendar', 'availability', 'scheduling'],
    },
  ],
  { supportedInterfaces: [{ url: '127.0.0.1:50061', protocolBinding: 'GRPC', protocolVersion: '1.0' }] },
);
const flights = card('Flight agent', [
  {
    id: 'hold-flight',
    name: 'Search and hold a flight',
    description: 'Searches flights and holds the cheapest',
    tags: ['travel', 'flights', 'search', 'hold'],
  },
]);
const hotels = card('Hotel agent', [
  {
    id: 'find-hotel',
    name: 'Find and book a hotel',
    description: 'Finds hotels in a city and books one',
    tags: ['travel', 'hotels', 'lodging', 'booking'],
  },
]);
// The sample travel agent: a flight skill too, and a weather skill that takes text only.
const travel = card('Travel agent', [
  {
    id: 'book-flight',
    name: 'Book a flight',
    description: 'Books a one-way flight',
    tags: ['travel', 'flights', 'booking'],
    inputModes: ['text/plain', 'application/json'],
  },
  {
    id: 'weather',
    name: 'Weather forecast',
    description: "Gives tomorrow's forecast",
    tags: ['travel', 'weather'],
    inputModes: ['text/plain'],
  },
]);
// More flight tags than anyone, but it cannot stream.
const airline = card(
  'Airline agent',
  [{ id: 'fares', name: 'Fares', description: 'Airline fares', tags: ['flights', 'flight', 'airline'] }],
  { capabilities: { streaming: false } },
);
// A hotel agent that takes only text: it cannot receive the orchestrator's data parts.
const textHotels = card('Chatty hotels', [
  {
    id: 'chat',
    name: 'Hotel chat',
    description: 'Talk about hotels',
    tags: ['hotels', 'hotel', 'lodging'],
    inputModes: ['text/plain'],
  },
]);

const candidates = (...cards: Array<[string, AgentCard]>): AgentCandidate[] =>
  cards.map(([name, agentCard]) => ({ name, card: agentCard }));

describe('RuleBasedAgentChooser', () => {
  const chooser = new RuleBasedAgentChooser();
  const team = candidates(['hotels', hotels], ['flights', flights], ['calendar', calendar], ['travel', travel]);

  it('gives each need of a trip the agent whose card fits it, wherever it is registered', () => {
    const chosen = TRIP_NEEDS.map((need) => chooser.choose(need, team));
    expect(chosen.map((choice) => [choice?.agent, choice?.skill.id])).toEqual([
      ['calendar', 'find-free-days'],
      ['flights', 'hold-flight'],
      ['hotels', 'find-hotel'],
    ]);
    expect(chosen[0]?.reason).toBe('tags calendar, availability, scheduling; takes application/json; over GRPC');
    expect(chosen[1]?.reason).toContain('streams');
  });

  it('never picks an agent that cannot stream for a streamed need, however well its tags match', () => {
    expect(chooser.choose(FLIGHT_NEED, candidates(['airline', airline], ['flights', flights]))?.agent).toBe('flights');
    expect(chooser.choose(FLIGHT_NEED, candidates(['airline', airline]))).toBeUndefined();
    // Not streamed, the same need would take it: its three tags beat one.
    expect(
      chooser.choose({ ...FLIGHT_NEED, streaming: false }, candidates(['flights', flights], ['airline', airline]))
        ?.agent,
    ).toBe('airline');
  });

  it('never sends data parts to a skill that takes only text, nor asks for data a skill does not produce', () => {
    expect(chooser.choose(HOTEL_NEED, candidates(['chat', textHotels]))).toBeUndefined();
    expect(chooser.choose(HOTEL_NEED, candidates(['chat', textHotels], ['hotels', hotels]))?.agent).toBe('hotels');
    const textOut = card('Text out', [
      { id: 'h', name: 'H', description: 'hotels', tags: ['hotels'], outputModes: ['text/plain'] },
    ]);
    expect(chooser.choose(HOTEL_NEED, candidates(['t', textOut]))).toBeUndefined();
  });

  it("reads a skill's own modes before the card's defaults, with wildcards and parameters", () => {
    const wildcard = card(
      'Any',
      [
        {
          id: 'any',
          name: 'Any',
          description: 'calendar things',
          tags: ['calendar'],
          inputModes: ['*/*'],
          outputModes: ['application/*'],
        },
      ],
      {
        defaultInputModes: ['text/plain'],
      },
    );
    expect(chooser.choose(FREE_DAYS_NEED, candidates(['any', wildcard]))?.agent).toBe('any');
    expect(accepts(['application/json; charset=utf-8'], 'application/json')).toBe(true);
    expect(accepts(['text/*'], 'application/json')).toBe(false);
    expect(accepts(undefined, 'application/json')).toBe(false);
  });

  it('breaks ties on tags by the words skill and need share, then by registration order', () => {
    // travel/book-flight and flights/hold-flight share one tag ("flights"); "search", "flights" and "hold" favour hold-flight.
    expect(chooser.choose(FLIGHT_NEED, candidates(['travel', travel], ['flights', flights]))?.agent).toBe('flights');
    const twin = card('Twin', flights.skills);
    expect(chooser.choose(FLIGHT_NEED, candidates(['twin', twin], ['flights', flights]))?.agent).toBe('twin');
    expect(chooser.choose(FLIGHT_NEED, candidates(['flights', flights], ['twin', twin]))?.agent).toBe('flights');
  });

  it('chooses nothing when no skill shares a tag with the need', () => {
    expect(
      chooser.choose(FREE_DAYS_NEED, candidates(['flights', flights], ['hotels', hotels], ['travel', travel])),
    ).toBeUndefined();
    expect(chooser.choose(FREE_DAYS_NEED, [])).toBeUndefined();
  });
});

describe('PromptedAgentChooser (the hook for a model, with a fake one)', () => {
  const need: AgentNeed = FLIGHT_NEED;
  const team = candidates(['travel', travel], ['flights', flights]);
  const model = (answer: string | Error): ChooserModel & { prompts: string[] } => {
    const prompts: string[] = [];
    return {
      prompts,
      complete: async (prompt) => {
        prompts.push(prompt);
        if (answer instanceof Error) throw answer;
        return answer;
      },
    };
  };

  it('takes the eligible skill the model names, with its reason', async () => {
    const fake = model('Sure. {"agent": "travel", "skillId": "book-flight", "reason": "it books"}');
    const choice = await new PromptedAgentChooser(fake).choose(need, team);
    expect(choice).toMatchObject({
      agent: 'travel',
      skill: { id: 'book-flight' },
      reason: 'chosen by the model: it books',
    });
    expect(fake.prompts).toHaveLength(1);
    expect(fake.prompts[0]).toBe(chooserPrompt(need, eligibleSkills(need, team)));
    expect(fake.prompts[0]).toContain('"skillId": "hold-flight"');
    expect(fake.prompts[0]).not.toContain('"skillId": "weather"');
  });

  it('falls back to the rules when the model names a skill the rules exclude, answers nonsense or fails', async () => {
    for (const answer of [
      '{"agent": "travel", "skillId": "weather"}',
      '{"agent": "airline", "skillId": "fares"}',
      'the flight one',
      '{not json',
      new Error('model down'),
    ]) {
      const choice = await new PromptedAgentChooser(model(answer)).choose(
        need,
        candidates(['travel', travel], ['flights', flights], ['airline', airline]),
      );
      expect(choice).toMatchObject({ agent: 'flights', skill: { id: 'hold-flight' } });
    }
  });

  it('does not ask the model when there is nothing to weigh', async () => {
    const fake = model('{"agent": "x", "skillId": "y"}');
    expect(await new PromptedAgentChooser(fake).choose(need, candidates(['flights', flights]))).toMatchObject({
      agent: 'flights',
    });
    expect(await new PromptedAgentChooser(fake).choose(need, [])).toBeUndefined();
    expect(fake.prompts).toEqual([]);
  });
});
