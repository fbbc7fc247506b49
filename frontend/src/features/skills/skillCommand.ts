/** The composer's skill commands:
 *  - "/skill NAME" activates a skill, "/skill off NAME" deactivates it;
 *  - a bare "/skill" (or "/skill off") opens the skill picker.
 * A skill called "off" can only be activated from the picker. Anything else
 * starting with "/skill " is a mistake the composer explains instead of
 * sending it to the model. */
import { t } from '../../i18n'

export type SkillCommand = { kind: 'activate'; name: string } | { kind: 'deactivate'; name: string } | { kind: 'picker'; off: boolean } | { kind: 'invalid'; message: string }

export const skillUsage = (): string => t('skillCmd.usage')

/** Reads a skill command from the composer's text; null when the text is an
 * ordinary message. */
export function parseSkillCommand(text: string): SkillCommand | null {
  const words = text.trim().split(/\s+/)
  if (words[0] !== '/skill') return null
  const rest = words.slice(1).filter(Boolean)
  if (rest.length === 0) return { kind: 'picker', off: false }
  if (rest[0] === 'off') {
    if (rest.length === 1) return { kind: 'picker', off: true }
    if (rest.length === 2) return { kind: 'deactivate', name: rest[1] }
  } else if (rest.length === 1) {
    return { kind: 'activate', name: rest[0] }
  }
  return { kind: 'invalid', message: t('skillCmd.invalid', { text: text.trim(), usage: skillUsage() }) }
}
