package agentgym

import (
	"context"
	"testing"
)

func TestServerInfo(t *testing.T) {
	_, s := suite(t, ALFWorld, nil)
	got, err := s.ServerInfo(context.Background())
	if err != nil || got != "This is environment alfworld (agentgymtest fake)." {
		t.Errorf("ServerInfo = %q, %v", got, err)
	}
}
