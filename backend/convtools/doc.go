// Package convtools defines the conversation tools the model uses to work
// with other conversations of the project: their names, definitions and
// arguments, and the JSON of their results. The application layer runs them.
//
// conv.create (a child conversation) and conv.send (a message to another
// conversation) hand the turn over: the task running ends (replaced), the
// other conversation answers in a task of its own, then a continuation
// gives the model that answer as the result of its call. conv.list,
// conv.history and conv.destroy answer at once.
package convtools
