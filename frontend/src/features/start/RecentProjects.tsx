import type { RecentProject } from '../../bridge'
import { timeAgo } from '../../lib/time'
import { useTranslation } from '../../i18n'

interface Props {
  projects: RecentProject[]
  loaded: boolean
  busy: boolean
  onOpen: (root: string) => void
  onForget: (root: string) => void
}

/** Recently opened projects; folders that are gone are greyed and can be removed. */
export function RecentProjects({ projects, loaded, busy, onOpen, onForget }: Props) {
  const { t } = useTranslation()
  return (
    <section className="recent" aria-labelledby="recent-title">
      <h2 id="recent-title" className="section-title">
        {t('recent.title')}
      </h2>
      {loaded && projects.length === 0 && (
        <p className="recent-empty" data-testid="recent-empty">
          {t('recent.empty')}
        </p>
      )}
      {projects.length > 0 && (
        <ul className="recent-list" data-testid="recent-list">
          {projects.map((p) => (
            <li
              key={p.root}
              className={p.exists ? 'recent-item' : 'recent-item recent-item-missing'}
              data-testid="recent-item"
              data-root={p.root}
              data-missing={p.exists ? 'false' : 'true'}
            >
              {p.exists ? (
                <button
                  type="button"
                  className="recent-open"
                  onClick={() => onOpen(p.root)}
                  disabled={busy}
                  title={t('recent.open', { path: p.root })}
                  data-testid="recent-open"
                >
                  <span className="recent-name">{p.name || p.root}</span>
                  <span className="recent-root mono">{p.root}</span>
                </button>
              ) : (
                <div className="recent-open" aria-disabled="true" title={t('recent.gone', { path: p.root })}>
                  <span className="recent-name">
                    {p.name || p.root}
                    <span className="badge" data-testid="recent-missing">
                      {t('recent.missing')}
                    </span>
                  </span>
                  <span className="recent-root mono">{p.root}</span>
                </div>
              )}
              <span className="recent-meta">{timeAgo(p.lastOpenedAt)}</span>
              {!p.exists && (
                <button
                  type="button"
                  className="btn btn-small"
                  onClick={() => onForget(p.root)}
                  aria-label={t('recent.remove', { name: p.name || p.root })}
                  data-testid="recent-remove"
                >
                  {t('common.remove')}
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}
