import { Fragment, useEffect } from 'react'
import { toolTitle } from '../../lib/toolSummary'
import type { SkillItem } from '../../bridge'
import { ErrorBanner } from '../../components/ErrorBanner'
import { useStore, useStores } from '../../stores'
import './skills.css'
import { t, Trans, useTranslation } from '../../i18n'

/** Where a skill comes from, in words. */
const sources: readonly string[] = ['project', 'package', 'user', 'claude-project', 'agents-project', 'claude-user', 'agents-user', 'codex-user']

/** Where a skill comes from, in words (an unknown source as it is). */
export const sourceLabel = (source: string): string => (sources.includes(source) ? t(`skillSource.${source}`) : source)

/** Settings → Skills: every skill found for the open project with its
 * source and path — those in use, those hidden by a skill of the same name
 * found first (shadowed), those that cannot be used (invalid) — each with
 * its problems; and the folders searched, highest precedence first. It
 * follows the disk while it is open. */
export function SkillsPanel() {
  const { t } = useTranslation()
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
        <p className="hint">{t('skills.openProject')}</p>
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
        <h3>{t('skills.title')}</h3>
        <p className="hint">
          <Trans t={t} i18nKey="skills.intro" components={{ code: <code /> }} />
        </p>
        {!loaded && <p className="hint">{t('common.loading')}</p>}
        {loaded && (
          <p className="hint" data-testid="skills-summary">
            {t('skills.ready', { count: usable })}
            {invalid > 0 ? t('skills.unusable', { count: invalid }) : ''}
            {'.'}
          </p>
        )}
        {loaded && items.length === 0 && (
          <p className="hint" data-testid="skills-empty">
            {t('skills.none')}
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
          <h3>{t('skills.where')}</h3>
          <p className="hint">{t('skills.whereHint')}</p>
          <dl className="skill-locations" data-testid="skill-locations">
            {view.locations.map((l) => (
              <Fragment key={l.source}>
                <dt>{sourceLabel(l.source)}</dt>
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
  const { t } = useTranslation()
  return (
    <li className={`card skill-card is-${s.status}`} data-testid="skill-card" data-skill={s.name} data-status={s.status}>
      <div className="skill-card-head">
        <span className="skill-card-name">{s.name || t('skills.noName')}</span>
        <span className="badge" title={sourceLabel(s.source)}>
          {s.source}
        </span>
        {s.status !== 'available' && <span className={`badge skill-status-${s.status}`}>{t(`skills.status.${s.status}`, { defaultValue: s.status })}</span>}
        {s.userOnly && (
          <span className="badge" title={t('skills.userOnlyTitle')}>
            {t('skills.userOnly')}
          </span>
        )}
        {s.modelOnly && (
          <span className="badge" title={t('skills.modelOnlyTitle')}>
            {t('skills.modelOnly')}
          </span>
        )}
        {s.allowedTools && (
          <span className="badge" title={t('skills.toolsTitle', { tools: s.allowedTools.join(', ') || t('skills.noFileTools') })}>
            {t('skills.tools', { tools: s.allowedTools.length ? s.allowedTools.map(toolTitle).join(t('recall.sep')) : t('insp.none') })}
          </span>
        )}
        {s.files > 0 && <span className="badge">{t('skills.files', { count: s.files })}</span>}
      </div>
      {s.description && <p className="skill-card-desc">{s.description}</p>}
      <div className="skill-card-path">{s.path}</div>
      {s.shadowedBy && <div className="skill-card-path">{t('skills.hiddenBy', { path: s.shadowedBy })}</div>}
      {s.problems.length > 0 && (
        <ul className="skill-problems" data-testid="skill-problems">
          {s.problems.map((p, i) => (
            <li key={i} className={`skill-problem is-${p.severity}`}>
              <span className="skill-problem-sev">{t(`skills.severity.${p.severity}`, { defaultValue: p.severity })}</span>
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
