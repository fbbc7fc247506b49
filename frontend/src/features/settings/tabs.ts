import type { ComponentType } from 'react'
import { McpPanel } from '../mcp/McpPanel'
import { PackagesPanel } from '../packages/PackagesPanel'
import { SkillsPanel } from '../skills/SkillsPanel'
import { ContextTab } from './ContextTab'
import type { FormTabProps } from './form'
import { GeneralTab } from './GeneralTab'
import { ModelsTab } from './ModelsTab'
import { ToolsTab } from './ToolsTab'

/** A page of the settings screen (its name: settings.tab.<id> in the
 * catalogues): either part of the settings.json form
 * (`edits` lists the JSON paths it edits, by prefix, so the page is marked
 * while one of them is wrong) or a page that acts on its own (no props). */
export type SettingsTabDef = { id: string } & (
  | { edits: string[]; Component: ComponentType<FormTabProps> }
  | { edits?: undefined; Component: ComponentType }
)

/** The pages, in order; a new page is one more line. */
export const settingsTabs: SettingsTabDef[] = [
  { id: 'general', edits: ['llm.', 'theme'], Component: GeneralTab },
  { id: 'models', edits: ['llm.endpoints', 'llm.prices', 'llm.currency', 'llm.requestShape', 'llm.reasoningEffort'], Component: ModelsTab },
  { id: 'context', edits: ['context.'], Component: ContextTab },
  { id: 'tools', edits: ['tools.', 'engine.'], Component: ToolsTab },
  { id: 'packages', Component: PackagesPanel },
  { id: 'mcp', Component: McpPanel },
  { id: 'skills', Component: SkillsPanel },
]

/** Whether a page is part of the settings.json form. */
export function isFormTab(t: SettingsTabDef): t is Extract<SettingsTabDef, { edits: string[] }> {
  return !!t.edits
}
