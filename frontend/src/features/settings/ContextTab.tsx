import { formatCount, formatPercent, parseCount, parsePercent } from '../../lib/units'
import { Field, UnitInput, type FormTabProps } from './form'

const offCount = (v: number) => (v === 0 ? '' : formatCount(v))

/** Settings → Context: how much of the conversation each request carries,
 * and when and how older messages are compacted. */
export function ContextTab({ draft }: FormTabProps) {
  const c = draft.form.context
  return (
    <>
      <section className="settings-section">
        <h3>Budget</h3>
        <p className="hint">What one request to the model may hold: the conversation, the tools and room for the reply.</p>
        <div className="settings-grid">
          <Field draft={draft} path="context.tokenBudget" label="Token budget" help="The model's context window: 128k, 200,000, 1M.">
            <UnitInput draft={draft} path="context.tokenBudget" value={c.tokenBudget} set={(s, v) => (s.context.tokenBudget = v)} format={formatCount} parse={(t) => parseCount(t, { what: 'a number of tokens' })} suffix="tokens" />
          </Field>
          <Field draft={draft} path="context.reserveForResponse" label="Reserved for the reply">
            <UnitInput
              draft={draft}
              path="context.reserveForResponse"
              value={c.reserveForResponse}
              set={(s, v) => (s.context.reserveForResponse = v)}
              format={formatCount}
              parse={(t) => parseCount(t, { min: 0, what: 'a number of tokens' })}
              suffix="tokens"
            />
          </Field>
        </div>
      </section>

      <section className="settings-section">
        <h3>Compaction</h3>
        <p className="hint">When a request outgrows its share of the budget, the oldest messages are summarised; nothing is deleted.</p>
        <div className="settings-grid">
          <Field draft={draft} path="context.triggerThreshold" label="Compact above" help="Of the budget, before a request is sent.">
            <UnitInput draft={draft} path="context.triggerThreshold" value={c.triggerThreshold} set={(s, v) => (s.context.triggerThreshold = v)} format={formatPercent} parse={(t) => parsePercent(t, { min: 0.05, max: 0.95 })} />
          </Field>
          <Field draft={draft} path="context.targetAfterCompression" label="Compact down to" help="Of the budget, after a compaction.">
            <UnitInput
              draft={draft}
              path="context.targetAfterCompression"
              value={c.targetAfterCompression}
              set={(s, v) => (s.context.targetAfterCompression = v)}
              format={formatPercent}
              parse={(t) => parsePercent(t, { min: 0.05, max: 0.95 })}
            />
          </Field>
          <Field draft={draft} path="context.compressionStrategy" label="Summary" wide>
            <select
              id="set-context.compressionStrategy"
              className="input"
              value={c.compressionStrategy}
              onChange={(e) => draft.edit((s) => (s.context.compressionStrategy = e.target.value))}
              data-testid="set-context.compressionStrategy"
            >
              <option value="key-messages">Key messages, quoted (no model call)</option>
              <option value="llm-summary">Written by the model</option>
            </select>
          </Field>
          <Field draft={draft} path="context.maxMessages" label="Compact above this many messages" help="Empty: no limit.">
            <UnitInput
              draft={draft}
              path="context.maxMessages"
              value={c.maxMessages}
              set={(s, v) => (s.context.maxMessages = v)}
              format={offCount}
              parse={(t) => parseCount(t, { off: true, what: 'a number of messages' })}
              suffix="messages"
              placeholder="No limit"
            />
          </Field>
          <Field draft={draft} path="context.maxChars" label="Compact above this many characters" help="Empty: no limit.">
            <UnitInput
              draft={draft}
              path="context.maxChars"
              value={c.maxChars}
              set={(s, v) => (s.context.maxChars = v)}
              format={offCount}
              parse={(t) => parseCount(t, { off: true, what: 'a number of characters' })}
              suffix="characters"
              placeholder="No limit"
            />
          </Field>
        </div>
      </section>
    </>
  )
}
