package agentgym

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// ServerInfo is what the server says of itself at its root path ("/"):
// AgentGym's servers answer with their environment's name and, where they
// have one, a version. A JSON string answer is unquoted; the text is cut to
// its first line and 200 bytes. Provenance records it beside the tasks'
// fingerprint.
func (s *Suite) ServerInfo(ctx context.Context) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.base.JoinPath("/").String(), nil)
	if err != nil {
		return "", fmt.Errorf("agentgym /: %w", err)
	}
	resp, err := s.cfg.Client.Do(req)
	if err != nil {
		return "", fmt.Errorf("agentgym /: %w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if err != nil {
		return "", fmt.Errorf("agentgym /: read body: %w", err)
	}
	if resp.StatusCode/100 != 2 {
		return "", fmt.Errorf("agentgym /: %w: HTTP %d", ErrServer, resp.StatusCode)
	}
	text := strings.TrimSpace(string(data))
	var str string
	if json.Unmarshal([]byte(text), &str) == nil {
		text = str
	}
	if i := strings.IndexByte(text, '\n'); i >= 0 {
		text = text[:i]
	}
	if len(text) > 200 {
		text = text[:200]
	}
	return strings.TrimSpace(text), nil
}
