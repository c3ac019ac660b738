package protocol

import (
	"testing"

	"github.com/acplint/acplint/domain"
)

// flowMethods are the methods whose checks live in cancel.go, tool.go,
// permission.go, fs.go, terminal.go and elicitation.go, with a typed nil
// and a zero value of their params and result.
var flowMethods = []emptyMethod{
	{domain.MethodSessionCancel, domain.FromClient, (*domain.CancelNotification)(nil), &domain.CancelNotification{}, nil, nil},
	{domain.MethodSessionPrompt, domain.FromClient, (*domain.PromptRequest)(nil), &domain.PromptRequest{}, (*domain.PromptResponse)(nil), &domain.PromptResponse{}},
	{domain.MethodSessionUpdate, domain.FromAgent, (*domain.SessionNotification)(nil), &domain.SessionNotification{}, nil, nil},
	{domain.MethodSessionRequestPermission, domain.FromAgent, (*domain.RequestPermissionRequest)(nil), &domain.RequestPermissionRequest{}, (*domain.RequestPermissionResponse)(nil), &domain.RequestPermissionResponse{}},
	{domain.MethodFSReadTextFile, domain.FromAgent, (*domain.ReadTextFileRequest)(nil), &domain.ReadTextFileRequest{}, (*domain.ReadTextFileResponse)(nil), &domain.ReadTextFileResponse{}},
	{domain.MethodFSWriteTextFile, domain.FromAgent, (*domain.WriteTextFileRequest)(nil), &domain.WriteTextFileRequest{}, (*domain.WriteTextFileResponse)(nil), &domain.WriteTextFileResponse{}},
	{domain.MethodTerminalCreate, domain.FromAgent, (*domain.CreateTerminalRequest)(nil), &domain.CreateTerminalRequest{}, (*domain.CreateTerminalResponse)(nil), &domain.CreateTerminalResponse{}},
	{domain.MethodTerminalOutput, domain.FromAgent, (*domain.TerminalOutputRequest)(nil), &domain.TerminalOutputRequest{}, (*domain.TerminalOutputResponse)(nil), &domain.TerminalOutputResponse{}},
	{domain.MethodTerminalWaitForExit, domain.FromAgent, (*domain.WaitForTerminalExitRequest)(nil), &domain.WaitForTerminalExitRequest{}, (*domain.WaitForTerminalExitResponse)(nil), &domain.WaitForTerminalExitResponse{}},
	{domain.MethodTerminalKill, domain.FromAgent, (*domain.KillTerminalRequest)(nil), &domain.KillTerminalRequest{}, (*domain.KillTerminalResponse)(nil), &domain.KillTerminalResponse{}},
	{domain.MethodTerminalRelease, domain.FromAgent, (*domain.ReleaseTerminalRequest)(nil), &domain.ReleaseTerminalRequest{}, (*domain.ReleaseTerminalResponse)(nil), &domain.ReleaseTerminalResponse{}},
	{domain.MethodElicitationCreate, domain.FromAgent, (*domain.CreateElicitationRequest)(nil), &domain.CreateElicitationRequest{}, (*domain.CreateElicitationResponse)(nil), &domain.CreateElicitationResponse{}},
	{domain.MethodElicitationComplete, domain.FromAgent, (*domain.CompleteElicitationNotification)(nil), &domain.CompleteElicitationNotification{}, nil, nil},
}

// TestFlowChecksSurviveEmptyMessages feeds every method of these areas
// with nil and zero params and results, answered by results, errors and
// nothing, and requires that stepping never panics or fails with a
// non-violation error: params that did not decode must not crash a check.
func TestFlowChecksSurviveEmptyMessages(t *testing.T) {
	// A connection with one prompting session, so that session-scoped
	// checks get past their first lookups.
	p := newPhase()
	p.Conn = ConnReady
	p.ClientCaps = &domain.ClientCapabilities{}
	p.AgentCaps = &domain.AgentCapabilities{}
	p.Sessions = p.Sessions.Set("", &Session{State: SessionPrompting, PromptKey: "99"})
	s := newSurvivor(t, "flow", p)
	for _, fm := range flowMethods {
		s.exchange(fm, nil,
			&domain.Message{Kind: domain.KindResult, Result: fm.nilRes},
			&domain.Message{Kind: domain.KindResult, Result: fm.zeroRes},
			&domain.Message{Kind: domain.KindError},
			&domain.Message{Kind: domain.KindError, Error: &domain.Error{Code: -32800, Message: "Request cancelled"}})
	}
	s.end()
}
