package protocol

import (
	"testing"

	"github.com/acplint/acplint/domain"
)

// TestSessionRuleChecksSurviveEmptyMessages feeds the methods checked in
// cap.go, config.go, update.go and turn.go with nil and zero params and
// results (and every session update kind with zero values), in every
// session state, and requires that stepping never panics or fails with an
// error that is not a violation.
func TestSessionRuleChecksSurviveEmptyMessages(t *testing.T) {
	methods := []emptyMethod{
		{domain.MethodInitialize, domain.FromClient, (*domain.InitializeRequest)(nil), &domain.InitializeRequest{}, (*domain.InitializeResponse)(nil), &domain.InitializeResponse{}},
		{domain.MethodAuthenticate, domain.FromClient, (*domain.AuthenticateRequest)(nil), &domain.AuthenticateRequest{}, nil, nil},
		{domain.MethodSessionNew, domain.FromClient, (*domain.NewSessionRequest)(nil), &domain.NewSessionRequest{}, (*domain.NewSessionResponse)(nil), &domain.NewSessionResponse{}},
		{domain.MethodSessionLoad, domain.FromClient, (*domain.LoadSessionRequest)(nil), &domain.LoadSessionRequest{}, (*domain.LoadSessionResponse)(nil), &domain.LoadSessionResponse{}},
		{domain.MethodSessionResume, domain.FromClient, (*domain.ResumeSessionRequest)(nil), &domain.ResumeSessionRequest{}, (*domain.ResumeSessionResponse)(nil), &domain.ResumeSessionResponse{}},
		{domain.MethodSessionSetMode, domain.FromClient, (*domain.SetSessionModeRequest)(nil), &domain.SetSessionModeRequest{}, nil, nil},
		{domain.MethodSessionSetConfigOption, domain.FromClient, (*domain.SetSessionConfigOptionRequest)(nil), &domain.SetSessionConfigOptionRequest{}, (*domain.SetSessionConfigOptionResponse)(nil), &domain.SetSessionConfigOptionResponse{}},
		{domain.MethodSessionPrompt, domain.FromClient, (*domain.PromptRequest)(nil), &domain.PromptRequest{}, (*domain.PromptResponse)(nil), &domain.PromptResponse{StopReason: domain.StopCancelled}},
		{domain.MethodElicitationCreate, domain.FromAgent, (*domain.CreateElicitationRequest)(nil), &domain.CreateElicitationRequest{Mode: domain.ElicitationFormMode{}}, nil, nil},
	}
	updates := []domain.SessionUpdate{
		nil, domain.UserMessageChunk{}, domain.AgentMessageChunk{}, domain.AgentThoughtChunk{},
		domain.ToolCall{}, domain.ToolCallUpdate{}, domain.Plan{}, domain.CurrentModeUpdate{},
		domain.ConfigOptionUpdate{ConfigOptions: []domain.SessionConfigOption{{}, {Kind: domain.SessionConfigSelect{}}, {Kind: domain.SessionConfigBoolean{}}}},
		domain.UsageUpdate{Used: 2, Size: 1, Cost: domain.Opt[domain.Cost]{State: domain.Present}},
		domain.Notice{}, domain.CompactionUpdate{}, domain.CompactionUpdate{Status: domain.CompactionCompleted},
		domain.CompactionSummaryChunk{}, domain.UnknownSessionUpdate{},
	}
	for _, state := range []SessionState{SessionLoading, SessionResuming, SessionIdle, SessionPrompting, SessionCancelling, SessionClosed} {
		p := newPhase()
		p.Conn = ConnReady
		p.ClientCaps = &domain.ClientCapabilities{}
		p.AgentCaps = &domain.AgentCapabilities{}
		p.Sessions = p.Sessions.Set("", &Session{State: state, PromptKey: "99", Modes: &domain.SessionModeState{},
			ConfigOptions: []domain.SessionConfigOption{{}, {Kind: domain.SessionConfigSelect{}}, {Kind: domain.SessionConfigBoolean{}}}})
		s := newSurvivor(t, state.String(), p)
		for _, u := range updates {
			for _, invalid := range []bool{false, true} {
				s.step(Event{Msg: &domain.Message{Kind: domain.KindNotification, Method: domain.MethodSessionUpdate, Dir: domain.FromAgent,
					Params: &domain.SessionNotification{Update: u}}, ParamsInvalid: invalid})
			}
		}
		for _, fm := range methods {
			s.exchange(fm, nil,
				&domain.Message{Kind: domain.KindResult, Result: fm.nilRes},
				&domain.Message{Kind: domain.KindResult, Result: fm.zeroRes},
				&domain.Message{Kind: domain.KindError})
		}
		s.end()
	}
}
