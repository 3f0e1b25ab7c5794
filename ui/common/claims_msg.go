package common

// ClaimsChangedMsg is sent by the root to the detail while it is shown
// when the team's claims changed (Team.ClaimsVersion): its claim line is
// drawn again.
type ClaimsChangedMsg struct{}
