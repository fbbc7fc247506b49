// Package convlog is the conversation store: the append-only JSONL log of
// each conversation, the index, forks, checkpoints, compaction marks and
// pins, the files beside a log (large tool outputs, attachments, the recall
// sidecars), search, paging, cleanup, and a store that announces its changes.
//
// What it stores is the message model of backend/conversation (Entry,
// ConversationMeta, compaction data and their constants); the store has no
// names of its own for it.
package convlog
