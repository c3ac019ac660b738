package protocol

import (
	"encoding/json"
	"testing"

	"github.com/acplint/acplint/domain"
)

// lifecycleMethods are the methods the SEQ, VER, AUTHN, SES and SID checks
// look at, with a typed nil and a zero value of their params and result.
var lifecycleMethods = []emptyMethod{
	{domain.MethodInitialize, domain.FromClient, (*domain.InitializeRequest)(nil), &domain.InitializeRequest{}, (*domain.InitializeResponse)(nil), &domain.InitializeResponse{}},
	{domain.MethodAuthenticate, domain.FromClient, (*domain.AuthenticateRequest)(nil), &domain.AuthenticateRequest{}, (*domain.AuthenticateResponse)(nil), &domain.AuthenticateResponse{}},
	{domain.MethodSessionNew, domain.FromClient, (*domain.NewSessionRequest)(nil), &domain.NewSessionRequest{}, (*domain.NewSessionResponse)(nil), &domain.NewSessionResponse{}},
	{domain.MethodSessionLoad, domain.FromClient, (*domain.LoadSessionRequest)(nil), &domain.LoadSessionRequest{}, (*domain.LoadSessionResponse)(nil), &domain.LoadSessionResponse{}},
	{domain.MethodSessionResume, domain.FromClient, (*domain.ResumeSessionRequest)(nil), &domain.ResumeSessionRequest{}, (*domain.ResumeSessionResponse)(nil), &domain.ResumeSessionResponse{}},
	{domain.MethodSessionList, domain.FromClient, (*domain.ListSessionsRequest)(nil), &domain.ListSessionsRequest{}, (*domain.ListSessionsResponse)(nil), &domain.ListSessionsResponse{}},
	{domain.MethodSessionDelete, domain.FromClient, (*domain.DeleteSessionRequest)(nil), &domain.DeleteSessionRequest{}, (*domain.DeleteSessionResponse)(nil), &domain.DeleteSessionResponse{}},
	{domain.MethodSessionClose, domain.FromClient, (*domain.CloseSessionRequest)(nil), &domain.CloseSessionRequest{}, (*domain.CloseSessionResponse)(nil), &domain.CloseSessionResponse{}},
	{domain.MethodSessionPrompt, domain.FromClient, (*domain.PromptRequest)(nil), &domain.PromptRequest{}, (*domain.PromptResponse)(nil), &domain.PromptResponse{}},
	{domain.MethodSessionSetMode, domain.FromClient, (*domain.SetSessionModeRequest)(nil), &domain.SetSessionModeRequest{}, (*domain.SetSessionModeResponse)(nil), &domain.SetSessionModeResponse{}},
	{domain.MethodSessionSetConfigOption, domain.FromClient, (*domain.SetSessionConfigOptionRequest)(nil), &domain.SetSessionConfigOptionRequest{}, (*domain.SetSessionConfigOptionResponse)(nil), &domain.SetSessionConfigOptionResponse{}},
	{domain.MethodSessionUpdate, domain.FromAgent, (*domain.SessionNotification)(nil), &domain.SessionNotification{}, nil, nil},
	{domain.MethodElicitationCreate, domain.FromAgent, (*domain.CreateElicitationRequest)(nil), &domain.CreateElicitationRequest{}, (*domain.CreateElicitationResponse)(nil), &domain.CreateElicitationResponse{}},
}

// TestLifecycleChecksSurviveEmptyMessages feeds these methods nil and zero
// params and results, answered by results, errors with and without data,
// and requires that stepping never panics or fails with a non-violation
// error, in every connection phase the checks distinguish.
func TestLifecycleChecksSurviveEmptyMessages(t *testing.T) {
	// Members of the wrong type in every raw params and result, for the
	// checks that read the bytes.
	raw := json.RawMessage(`{"protocolVersion":"x","clientInfo":{"name":""},"cwd":7,"sessions":[{"cwd":"rel"}]}`)
	for _, conn := range []ConnState{ConnAwaitingInitialize, ConnInitializing, ConnReady} {
		p := newPhase()
		p.Conn = conn
		p.AuthMethods = []domain.AuthMethod{domain.AuthMethodAgent{ID: "login"}, domain.AuthMethodTerminal{ID: "tui"}, domain.UnknownAuthMethod{}}
		for _, st := range []SessionState{SessionLoading, SessionResuming, SessionPrompting, SessionClosed} {
			id := domain.SessionID(st.String())
			p.Sessions = p.Sessions.Set(id, &Session{ID: id, State: st, PromptKey: "99"})
		}
		s := newSurvivor(t, conn.String(), p)
		for _, lm := range lifecycleMethods {
			s.exchange(lm, raw,
				&domain.Message{Kind: domain.KindResult, Result: lm.nilRes},
				&domain.Message{Kind: domain.KindResult, Result: lm.zeroRes, RawResult: raw},
				&domain.Message{Kind: domain.KindError},
				&domain.Message{Kind: domain.KindError, Error: &domain.Error{Code: -32000, Message: "Authentication required"}},
				&domain.Message{Kind: domain.KindError, Error: &domain.Error{Code: -32002, Message: "Session not found", Data: json.RawMessage(`[1`)}})
		}
		s.end()
	}
}
