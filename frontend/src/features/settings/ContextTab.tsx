import { formatCount, formatPercent, parseCount, parsePercent } from '../../lib/units'
import { Advanced, Field, UnitInput, type FormTabProps } from './form'
import { useTranslation } from '../../i18n'

const offCount = (v: number) => (v === 0 ? '' : formatCount(v))

/** Settings → Context: how much of the conversation each request carries,
 * and when and how older messages are compacted. */
export function ContextTab({ draft }: FormTabProps) {
  const { t } = useTranslation()
  const c = draft.form.context
  return (
    <>
      <section className="settings-section">
        <h3>{t('settings.ctx.compaction')}</h3>
        <p className="hint">{t('settings.ctx.compactionHint')}</p>
        <div className="settings-grid">
          <Field draft={draft} path="context.compressionStrategy" label={t('settings.ctx.summary')} wide>
            <select
              id="set-context.compressionStrategy"
              className="input"
              value={c.compressionStrategy}
              onChange={(e) => draft.edit((s) => (s.context.compressionStrategy = e.target.value))}
              data-testid="set-context.compressionStrategy"
            >
              <option value="key-messages">{t('settings.ctx.keyMessages')}</option>
              <option value="llm-summary">{t('settings.ctx.llmSummary')}</option>
            </select>
          </Field>
        </div>
      </section>
      <Advanced draft={draft} paths={['context.tokenBudget', 'context.reserveForResponse', 'context.triggerThreshold', 'context.targetAfterCompression', 'context.maxMessages', 'context.maxChars']} testId="settings-advanced-context">
        <section className="settings-section">
          <h3>{t('settings.ctx.budget')}</h3>
          <p className="hint">{t('settings.ctx.budgetHint')}</p>
          <div className="settings-grid">
            <Field draft={draft} path="context.tokenBudget" label={t('settings.ctx.tokenBudget')} help={t('settings.ctx.tokenBudgetHelp')}>
              <UnitInput draft={draft} path="context.tokenBudget" value={c.tokenBudget} set={(s, v) => (s.context.tokenBudget = v)} format={formatCount} parse={(v) => parseCount(v, { what: t('settings.what.tokens') })} suffix={t('settings.suffix.tokens')} />
            </Field>
            <Field draft={draft} path="context.reserveForResponse" label={t('settings.ctx.reserve')}>
              <UnitInput
                draft={draft}
                path="context.reserveForResponse"
                value={c.reserveForResponse}
                set={(s, v) => (s.context.reserveForResponse = v)}
                format={formatCount}
                parse={(v) => parseCount(v, { min: 0, what: t('settings.what.tokens') })}
                suffix={t('settings.suffix.tokens')}
              />
            </Field>
          </div>
        </section>

        <section className="settings-section">
          <h3>{t('settings.ctx.compactionNumbers')}</h3>
          <div className="settings-grid">
            <Field draft={draft} path="context.triggerThreshold" label={t('settings.ctx.trigger')} help={t('settings.ctx.triggerHelp')}>
              <UnitInput draft={draft} path="context.triggerThreshold" value={c.triggerThreshold} set={(s, v) => (s.context.triggerThreshold = v)} format={formatPercent} parse={(v) => parsePercent(v, { min: 0.05, max: 0.95 })} />
            </Field>
            <Field draft={draft} path="context.targetAfterCompression" label={t('settings.ctx.target')} help={t('settings.ctx.targetHelp')}>
              <UnitInput
                draft={draft}
                path="context.targetAfterCompression"
                value={c.targetAfterCompression}
                set={(s, v) => (s.context.targetAfterCompression = v)}
                format={formatPercent}
                parse={(v) => parsePercent(v, { min: 0.05, max: 0.95 })}
              />
            </Field>
            <Field draft={draft} path="context.maxMessages" label={t('settings.ctx.maxMessages')} help={t('settings.ctx.emptyNoLimit')}>
              <UnitInput
                draft={draft}
                path="context.maxMessages"
                value={c.maxMessages}
                set={(s, v) => (s.context.maxMessages = v)}
                format={offCount}
                parse={(v) => parseCount(v, { off: true, what: t('settings.what.messages') })}
                suffix={t('settings.suffix.messages')}
                placeholder={t('settings.noLimit')}
              />
            </Field>
            <Field draft={draft} path="context.maxChars" label={t('settings.ctx.maxChars')} help={t('settings.ctx.emptyNoLimit')}>
              <UnitInput
                draft={draft}
                path="context.maxChars"
                value={c.maxChars}
                set={(s, v) => (s.context.maxChars = v)}
                format={offCount}
                parse={(v) => parseCount(v, { off: true, what: t('settings.what.characters') })}
                suffix={t('settings.suffix.characters')}
                placeholder={t('settings.noLimit')}
              />
            </Field>
          </div>
        </section>
      </Advanced>
    </>
  )
}
