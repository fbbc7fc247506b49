import { Markdown } from '../../components/Markdown'
import { Modal } from '../../components/Modal'
import { useStore, useStores } from '../../stores'
import { formatBytes } from '../../lib/format'
import { useTranslation } from '../../i18n'

/** Whether a file is Markdown, by its name. */
export const isMarkdownFile = (path: string) => /\.(md|markdown|mdown|mkd)$/i.test(path)

/** A run's artifact (a project file) shown read-only: Markdown formatted
 * (through the one markdown module), other text as it is. */
export function ArtifactViewer() {
  const { t } = useTranslation()
  const { runs } = useStores()
  const a = useStore(runs, (s) => s.artifact)
  if (!a) return null
  const markdown = isMarkdownFile(a.path)
  return (
    <Modal title={a.path.split('/').pop() || a.path} onClose={runs.actions.closeArtifact} wide testId="artifact-viewer">
      <p className="hint" title={a.path}>
        {t('artifact.meta', { path: a.path, size: formatBytes(a.size) })}
        {a.truncated ? t('artifact.first') : ''}
      </p>
      {a.binary ? (
        <p className="hint" data-testid="artifact-binary">
          {t('artifact.binary')}
        </p>
      ) : markdown ? (
        <div className="artifact-markdown" data-testid="artifact-content" data-format="markdown">
          <Markdown text={a.content} />
        </div>
      ) : (
        <pre className="artifact-content mono" data-testid="artifact-content" data-format="text">
          {a.content}
        </pre>
      )}
    </Modal>
  )
}
