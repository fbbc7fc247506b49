package conversation

import "strings"

// Sidecar files kept beside a conversation's log: the recall index and the
// cached embeddings of its compacted messages. They are derived data: a
// missing or damaged one is rebuilt or ignored, never needed to read the
// conversation. The store keeps them (and copies the recall documents a fork
// needs); the recall index writes them.
const (
	RecallFile       = "recall.jsonl"
	embeddingsPrefix = "embeddings-"
	embeddingsSuffix = ".bin"
)

// EmbeddingsFile is the sidecar holding the vectors of one embeddings model
// (key is a short hash of the model name).
func EmbeddingsFile(key string) string { return embeddingsPrefix + key + embeddingsSuffix }

// EmbeddingsKey returns the key of an EmbeddingsFile name; ok is false for
// any other name (and for an empty key).
func EmbeddingsKey(name string) (key string, ok bool) {
	k, ok := strings.CutPrefix(name, embeddingsPrefix)
	if !ok {
		return "", false
	}
	k, ok = strings.CutSuffix(k, embeddingsSuffix)
	return k, ok && k != ""
}
