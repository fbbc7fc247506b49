package llm

import (
	"context"
	"fmt"

	openai "github.com/sashabaranov/go-openai"
)

// Embed returns the embeddings of texts computed by model (POST /embeddings
// of the OpenAI API), one vector per text in order. Retries and timeouts
// work as in Models.
func (c *Client) Embed(ctx context.Context, model string, texts []string) ([][]float32, error) {
	if c.urlErr != "" {
		return nil, &Error{Code: CodeNotConfigured, Message: c.urlErr}
	}
	if model == "" {
		return nil, &Error{Code: CodeNotConfigured, Message: "no embeddings model is configured"}
	}
	callCtx, cancel := c.callContext(ctx)
	defer cancel()
	var out [][]float32
	err := c.retry(ctx, callCtx, &Result{}, c.cfg.MaxRetries, func() (bool, error) {
		actx, acancel := context.WithCancelCause(callCtx)
		defer acancel(nil)
		info := &attemptInfo{}
		resp, err := c.oa.CreateEmbeddings(withAttempt(actx, info), openai.EmbeddingRequestStrings{
			Input: texts, Model: openai.EmbeddingModel(model), EncodingFormat: openai.EmbeddingEncodingFormatFloat})
		if err != nil {
			return false, c.classify(ctx, callCtx, actx, info, err)
		}
		if len(resp.Data) != len(texts) {
			return false, c.newError(CodeBadResponse, fmt.Sprintf("the embeddings answer has %d vectors for %d texts", len(resp.Data), len(texts)), info, nil)
		}
		out = make([][]float32, len(texts))
		for _, d := range resp.Data {
			if d.Index < 0 || d.Index >= len(out) {
				return false, c.newError(CodeBadResponse, fmt.Sprintf("the embeddings answer has an index %d out of range", d.Index), info, nil)
			}
			out[d.Index] = d.Embedding
		}
		return false, nil
	})
	return out, err
}
