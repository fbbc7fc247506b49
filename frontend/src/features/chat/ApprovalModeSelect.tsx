import { ApprovalModes, type ApprovalModeName } from '../../bridge'
import { useStore, useStores } from '../../stores'
import { useTranslation } from '../../i18n'

const sources: readonly string[] = ['conversation', 'environment', 'project', 'settings', 'default']

/** The approval mode of the open conversation, in the composer. */
export function ApprovalModeSelect({ disabled }: { disabled?: boolean }) {
  const { t } = useTranslation()
  const { chat } = useStores()
  const m = useStore(chat, (s) => s.approvalMode)
  const conversationId = useStore(chat, (s) => s.conversationId)
  if (!m || !conversationId) return null
  const mode = m.mode as ApprovalModeName
  return (
    <label className="approval-mode" title={t('approvalMode.title', { hint: t(`approvalMode.hint.${mode}`, { defaultValue: '' }), source: sources.includes(m.source) ? t(`approvalMode.source.${m.source}`) : m.source })}>
      <span className="approval-mode-label">{t('approvalMode.label')}</span>
      <select
        className="approval-mode-select"
        value={mode}
        disabled={disabled}
        onChange={(e) => void chat.actions.setApprovalMode(e.target.value as ApprovalModeName)}
        data-testid="approval-mode"
      >
        {ApprovalModes.map((k) => (
          <option key={k} value={k}>
            {t(`approvalMode.${k}`)}
          </option>
        ))}
      </select>
    </label>
  )
}
