import { Fragment, useEffect } from 'react'
import type { SkillItem } from '../../bridge'
import { ErrorBanner } from '../../components/ErrorBanner'
import { count } from '../../lib/count'
import { useStore, useStores } from '../../stores'
import './skills.css'

/** Where a skill comes from, in words. */
export const sourceLabels: Record<string, string> = {
  project: 'this project (.crewagent/skills)',
  package: "the active package's skills",
  user: 'your CrewAgent skills',
  'claude-project': "this project's Claude Code skills (.claude/skills)",
  'agents-project': "this project's .agents/skills",
  'claude-user': 'your Claude Code skills (~/.claude/skills)',
  'agents-user': 'your ~/.agents/skills',
  'codex-user': 'your Codex skills (~/.codex/skills)',
}

/** Settings → Skills: every skill found for the open project with its
 * source and path — those in use, those hidden by a skill of the same name
 * found first (shadowed), those that cannot be used (invalid) — each with
 * its problems; and the folders searched, highest precedence first. It
 * follows the disk while it is open. */
export function SkillsPanel() {
  const { skills, projects } = useStores()
  const view = useStore(skills, (s) => s.view)
  const loaded = useStore(skills, (s) => s.loaded)
  const error = useStore(skills, (s) => s.error)
  const project = useStore(projects, (s) => s.current)

  useEffect(() => skills.actions.start(), [skills])
  useEffect(() => {
    if (project) void skills.actions.load()
  }, [skills, project])

  if (!project) {
    return (
      <div className="skills-panel" data-testid="skills-panel">
        <p className="hint">Open a project to see its skills.</p>
      </div>
    )
  }
  const items = view?.skills ?? []
  const usable = items.filter((s) => s.status === 'available').length
  const invalid = items.filter((s) => s.status === 'invalid').length
  return (
    <div className="skills-panel" data-testid="skills-panel">
      {error && <ErrorBanner error={error} onDismiss={skills.actions.dismissError} />}
      <section className="settings-section">
        <h3>Skills</h3>
        <p className="hint">
          A skill is a folder with a SKILL.md (instructions, and sometimes files they refer to) — the format Claude Code and Codex read. The model sees each skill’s name and
          description and activates one when a task calls for it; you can activate one with <code>/skill NAME</code> or the Skills button above the message box.
        </p>
        {!loaded && <p className="hint">Loading…</p>}
        {loaded && (
          <p className="hint" data-testid="skills-summary">
            {count(usable, 'skill')} ready to use{invalid > 0 ? `, ${count(invalid, 'folder')} that cannot be used` : ''}.
          </p>
        )}
        {loaded && items.length === 0 && (
          <p className="hint" data-testid="skills-empty">
            No skills found. Put a folder with a SKILL.md into one of the folders below.
          </p>
        )}
        <ul className="card-list">
          {items.map((s, i) => (
            <SkillCard key={`${s.name}:${s.path}:${i}`} s={s} />
          ))}
        </ul>
      </section>
      {view && (
        <section className="settings-section">
          <h3>Where skills are found</h3>
          <p className="hint">When two folders hold a skill of the same name, the one listed first wins; the other is shown as shadowed.</p>
          <dl className="skill-locations" data-testid="skill-locations">
            {view.locations.map((l) => (
              <Fragment key={l.source}>
                <dt>{sourceLabels[l.source] ?? l.source}</dt>
                <dd>{l.dir}</dd>
              </Fragment>
            ))}
          </dl>
        </section>
      )}
    </div>
  )
}

function SkillCard({ s }: { s: SkillItem }) {
  return (
    <li className={`card skill-card is-${s.status}`} data-testid="skill-card" data-skill={s.name} data-status={s.status}>
      <div className="skill-card-head">
        <span className="skill-card-name">{s.name || '(no name)'}</span>
        <span className="badge" title={sourceLabels[s.source] ?? s.source}>
          {s.source}
        </span>
        {s.status !== 'available' && <span className={`badge skill-status-${s.status}`}>{s.status}</span>}
        {s.userOnly && (
          <span className="badge" title="disable-model-invocation: only you can activate it; the model is not told about it">
            user only
          </span>
        )}
        {s.modelOnly && (
          <span className="badge" title="user-invocable: false: the model activates it when a task calls for it">
            model only
          </span>
        )}
        {s.allowedTools && (
          <span className="badge" title={`While it is active the model may only use: ${s.allowedTools.join(', ') || 'no file tools'}`}>
            tools: {s.allowedTools.length ? s.allowedTools.join(', ') : 'none'}
          </span>
        )}
        {s.files > 0 && <span className="badge">{count(s.files, 'file')}</span>}
      </div>
      {s.description && <p className="skill-card-desc">{s.description}</p>}
      <div className="skill-card-path">{s.path}</div>
      {s.shadowedBy && <div className="skill-card-path">hidden by {s.shadowedBy}</div>}
      {s.problems.length > 0 && (
        <ul className="skill-problems" data-testid="skill-problems">
          {s.problems.map((p, i) => (
            <li key={i} className={`skill-problem is-${p.severity}`}>
              <span className="skill-problem-sev">{p.severity}</span>
              <span>
                {p.message}
                {p.file !== s.path && <span className="skill-card-path"> — {p.file}</span>}
              </span>
            </li>
          ))}
        </ul>
      )}
    </li>
  )
}
