import { useEffect, useState } from 'react'
import type { ContextPreview } from '../../bridge'
import { useStore, useStores } from '../../stores'
import { formatTokens } from './meter'

/** The project's instruction file (AGENTS.md): what every request carries
 * before the conversation, how much of the budget it takes, and an editor. */
export function ProjectInstructions({ preview }: { preview: ContextPreview }) {
  const { context } = useStores()
  const file = useStore(context, (s) => s.instructions)
  const saving = useStore(context, (s) => s.savingInstructions)
  const error = useStore(context, (s) => s.instructionsError)
  const [draft, setDraft] = useState<string | null>(null)
  const [saved, setSaved] = useState(false)
  useEffect(() => {
    void context.actions.loadInstructions()
  }, [context])
  const inRequest = preview.messages.filter((m) => m.reason.startsWith('project instructions'))
  const tokens = inRequest.reduce((n, m) => n + m.tokens, 0)

  const save = async () => {
    if (draft === null) return
    if (await context.actions.saveInstructions(draft)) {
      setDraft(null)
      setSaved(true)
    }
  }

  return (
    <section className="inspector-section" data-testid="inspector-instructions">
      <h3>
        Project instructions
        {file?.exists ? ` · ${file.name}` : ''}
        {tokens > 0 ? ` · ${formatTokens(tokens)} tokens in every request` : ''}
      </h3>
      {file && !file.exists && draft === null && (
        <p className="hint" data-testid="instructions-none">
          This project has no {file.name}. What you write there goes into every request, in every mode, word for word, and no compaction
          ever removes it.
        </p>
      )}
      {file?.exists && draft === null && (
        <pre className="instructions-text" data-testid="instructions-text">
          {file.text || '(empty)'}
        </pre>
      )}
      {file?.truncated && <p className="hint">The file is longer than 64 KB: requests carry its beginning, and it can only be edited outside the app.</p>}
      {draft !== null ? (
        <div className="instructions-editor">
          <textarea
            aria-label={`Edit ${file?.name ?? 'AGENTS.md'}`}
            data-testid="instructions-editor"
            value={draft}
            rows={12}
            spellCheck={false}
            onChange={(e) => setDraft(e.target.value)}
          />
          <div className="instructions-actions">
            <button type="button" className="btn btn-primary" disabled={saving} onClick={() => void save()} data-testid="instructions-save">
              {saving ? 'Saving…' : 'Save'}
            </button>
            <button type="button" className="btn" disabled={saving} onClick={() => setDraft(null)}>
              Cancel
            </button>
          </div>
        </div>
      ) : (
        file &&
        !file.truncated && (
          <div className="instructions-actions">
            <button
              type="button"
              className="btn"
              data-testid="instructions-edit"
              onClick={() => {
                setSaved(false)
                setDraft(file.text)
              }}
            >
              {file.exists ? `Edit ${file.name}` : `Create ${file.name}`}
            </button>
            {saved && (
              <span className="hint" role="status" data-testid="instructions-saved">
                Saved: the next request carries it.
              </span>
            )}
          </div>
        )
      )}
      {error && (
        <p className="alert" role="alert" data-testid="instructions-error">
          {error.message}
        </p>
      )}
    </section>
  )
}
