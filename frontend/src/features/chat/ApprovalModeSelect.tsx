import { ApprovalModes, type ApprovalModeName } from '../../bridge'
import { useStore, useStores } from '../../stores'

const labels: Record<ApprovalModeName, string> = {
  'read-only': 'Read only',
  ask: 'Ask',
  'auto-edit': 'Auto-edit',
  'full-auto': 'Full auto',
}

const hints: Record<ApprovalModeName, string> = {
  'read-only': 'Nothing is written and no command runs',
  ask: 'Every write and every command waits for you',
  'auto-edit': 'Writes inside the project run; commands wait for you',
  'full-auto': 'Writes and commands run without asking',
}

const sources: Record<string, string> = {
  conversation: 'chosen for this conversation',
  environment: 'from CREWAGENT_APPROVE',
  project: "the project's default",
  settings: 'the default of your settings',
  default: 'the default',
}

/** The approval mode of the open conversation, in the composer. */
export function ApprovalModeSelect({ disabled }: { disabled?: boolean }) {
  const { chat } = useStores()
  const m = useStore(chat, (s) => s.approvalMode)
  const conversationId = useStore(chat, (s) => s.conversationId)
  if (!m || !conversationId) return null
  const mode = m.mode as ApprovalModeName
  return (
    <label className="approval-mode" title={`${hints[mode] ?? ''} (${sources[m.source] ?? m.source})`}>
      <span className="approval-mode-label">Approvals</span>
      <select
        className="approval-mode-select"
        value={mode}
        disabled={disabled}
        onChange={(e) => void chat.actions.setApprovalMode(e.target.value as ApprovalModeName)}
        data-testid="approval-mode"
      >
        {ApprovalModes.map((k) => (
          <option key={k} value={k}>
            {labels[k]}
          </option>
        ))}
      </select>
    </label>
  )
}
