import { Injectable } from '@nestjs/common';
import type { AgentCard } from '../../../libs/a2a/src/index.js';
import type { AgentCandidate, AgentChoice, AgentChooser, AgentNeed, CardSkill } from './agent-chooser.js';

/** A skill that could do a need: it takes and gives the right media types, streams if asked to, and shares a tag. */
export interface EligibleSkill {
  readonly agent: string;
  readonly card: AgentCard;
  readonly skill: CardSkill;
  /** The need's tags the skill carries. */
  readonly matchedTags: readonly string[];
}

/**
 * The default {@link AgentChooser}: rules over the cards, no model. A skill is eligible when it accepts what the
 * orchestrator sends and produces what it reads (the skill's `inputModes` / `outputModes`, else the card's defaults;
 * wildcards such as `image/*` match), its agent streams when the need is streamed, and it carries at least one of the need's
 * tags. Among eligible skills the one with most matching tags wins, then the one whose name and description share
 * most words with the need's description, then the first agent registered, then its first skill.
 */
@Injectable()
export class RuleBasedAgentChooser implements AgentChooser {
  choose(need: AgentNeed, candidates: readonly AgentCandidate[]): AgentChoice | undefined {
    let best: { eligible: EligibleSkill; score: [number, number] } | undefined;
    for (const eligible of eligibleSkills(need, candidates)) {
      const score: [number, number] = [
        eligible.matchedTags.length,
        sharedWords(need.description, `${eligible.skill.name} ${eligible.skill.description}`),
      ];
      if (!best || score[0] > best.score[0] || (score[0] === best.score[0] && score[1] > best.score[1]))
        best = { eligible, score };
    }
    if (!best) return undefined;
    const { agent, card, skill, matchedTags } = best.eligible;
    return { agent, skill, reason: reasonFor(need, card, matchedTags) };
  }
}

/** The skills of `candidates` that meet a need's hard requirements (modes, streaming, one shared tag), in card order. */
export function eligibleSkills(need: AgentNeed, candidates: readonly AgentCandidate[]): EligibleSkill[] {
  const wanted = new Set(need.tags.map((tag) => tag.toLowerCase()));
  const eligible: EligibleSkill[] = [];
  for (const { name, card } of candidates) {
    if (need.streaming && card.capabilities?.streaming !== true) continue;
    for (const skill of card.skills ?? []) {
      if (!accepts(skill.inputModes?.length ? skill.inputModes : card.defaultInputModes, need.sends)) continue;
      if (!accepts(skill.outputModes?.length ? skill.outputModes : card.defaultOutputModes, need.reads)) continue;
      const matchedTags = [...new Set((skill.tags ?? []).map((tag) => tag.toLowerCase()))].filter((tag) =>
        wanted.has(tag),
      );
      if (matchedTags.length > 0) eligible.push({ agent: name, card, skill, matchedTags });
    }
  }
  return eligible;
}

/** Whether a list of media types (maybe with wildcards and parameters) includes `mediaType`. */
export function accepts(modes: readonly string[] | undefined, mediaType: string): boolean {
  const [type, subtype] = essence(mediaType).split('/');
  return (modes ?? []).some((mode) => {
    const [modeType, modeSubtype] = essence(mode).split('/');
    return (modeType === '*' || modeType === type) && (modeSubtype === '*' || modeSubtype === subtype);
  });
}

function essence(mediaType: string): string {
  return mediaType.split(';')[0].trim().toLowerCase();
}

function sharedWords(a: string, b: string): number {
  const words = (text: string) => new Set(text.toLowerCase().match(/[a-z]{4,}/g) ?? []);
  const other = words(b);
  return [...words(a)].filter((word) => other.has(word)).length;
}

function reasonFor(need: AgentNeed, card: AgentCard, matchedTags: readonly string[]): string {
  const bindings = [...new Set((card.supportedInterfaces ?? []).map((entry) => entry.protocolBinding))].join('/');
  return `tags ${matchedTags.join(', ')}; takes ${need.sends}${need.streaming ? '; streams' : ''}; over ${bindings}`;
}
