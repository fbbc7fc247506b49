import * as SkillsBinding from '../../wailsjs/go/desktop/Skills'
import type { conversation, projectskills, skills } from '../../wailsjs/go/models'
import { call } from './errors'

/** Every skill found for the project (available, shadowed, invalid) and the
 * folders searched, highest precedence first. */
export type SkillsView = projectskills.ListView
/** One row of the listing: name, description, source, path, problems, status. */
export type SkillItem = skills.ListItem
export type SkillProblem = skills.Problem
export type SkillLocation = skills.Location
/** A skill active in a conversation (a chip of the composer). */
export type ActiveSkill = projectskills.ActiveView
/** The outcome of an activation or deactivation, with the skills active after it. */
export type SkillChange = projectskills.ChangeView
/** What a skill entry of the log is (entry.view.skill): the skill, whether
 * it still applies, its instructions. */
export type SkillView = conversation.SkillView

/** The open project's skills, and those active in its conversations. */
export interface SkillsApi {
  list(): Promise<SkillsView>
  active(conversationId: string): Promise<ActiveSkill[]>
  /** Activates a skill for the user (E_SKILL_NOT_FOUND, E_SKILL_INVALID,
   * E_SKILL_NOT_ALLOWED, E_BUSY reject). */
  activate(conversationId: string, name: string): Promise<SkillChange>
  deactivate(conversationId: string, name: string): Promise<SkillChange>
}

export function createWailsSkills(): SkillsApi {
  return {
    list: () => call(() => SkillsBinding.List()),
    active: (id) => call(async () => (await SkillsBinding.Active(id)) ?? []),
    activate: (id, name) => call(() => SkillsBinding.Activate(id, name)),
    deactivate: (id, name) => call(() => SkillsBinding.Deactivate(id, name)),
  }
}
