import { Modal } from '../../components/Modal'
import { useStore, useStores } from '../../stores'

/** A run's artifact (a project file) shown read-only. */
export function ArtifactViewer() {
  const { runs } = useStores()
  const a = useStore(runs, (s) => s.artifact)
  if (!a) return null
  return (
    <Modal title={a.path} onClose={runs.actions.closeArtifact} wide testId="artifact-viewer">
      <p className="hint">
        {a.size.toLocaleString()} bytes · read-only{a.truncated ? ' · the first 2 MB are shown' : ''}
      </p>
      {a.binary ? (
        <p className="hint" data-testid="artifact-binary">
          This file is not text and cannot be shown here.
        </p>
      ) : (
        <pre className="artifact-content mono" data-testid="artifact-content">
          {a.content}
        </pre>
      )}
    </Modal>
  )
}
