interface Props {
  root: string
  question: string
  busy: boolean
  onAnswer: (keep: boolean) => void
  onCancel: () => void
}

/** The question of a folder that looks like a project moved from another path:
 * keep its conversations here, or make the folder a new project. */
export function MovedProject({ root, question, busy, onAnswer, onCancel }: Props) {
  return (
    <section className="card moved-project" role="alertdialog" aria-labelledby="moved-title" aria-describedby="moved-question" data-testid="moved-project" data-root={root}>
      <h2 id="moved-title" className="card-title">
        Moved project?
      </h2>
      <p id="moved-question" className="moved-question" data-testid="moved-question">
        {question}
      </p>
      <p className="hint">
        Yes: its conversations, runs and choices open in <span className="mono">{root}</span>. No: this folder becomes a new project; the
        old conversations stay in the runtime home. Either way, the folder&apos;s MCP servers and permissions are approved again.
      </p>
      <div className="form-actions">
        <button type="button" className="btn btn-ghost" onClick={onCancel} disabled={busy} data-testid="moved-cancel">
          Cancel
        </button>
        <button type="button" className="btn" onClick={() => onAnswer(false)} disabled={busy} data-testid="moved-new">
          No, a new project
        </button>
        <button type="button" className="btn btn-primary" onClick={() => onAnswer(true)} disabled={busy} data-testid="moved-keep">
          Yes, use its conversations
        </button>
      </div>
    </section>
  )
}
