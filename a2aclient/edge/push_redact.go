package edge

import (
	"regexp"
	"strings"
)

// pushSecret matches the secrets of a push config in a captured body
// (CreateTaskPushNotificationConfig's request, and what the agent echoes
// or lists): its "token" and its authentication's "credentials", in the
// JSON of every binding and version (gRPC captures are rendered as JSON
// too). A value cut off by the capture's size limit has no closing quote
// and is matched to the end.
var pushSecret = regexp.MustCompile(`("(?:token|credentials)"\s*:\s*")(?:[^"\\]|\\.)*`)

// redactPushSecrets replaces the tokens a2atop puts in its push configs:
// each is fresh and unknown to the redactor's list of secrets.
func redactPushSecrets(s string) string {
	return pushSecret.ReplaceAllString(s, "${1}"+redacted)
}

// pushRPCName names the REST push config operations for the raw view
// (POST, GET and DELETE on /tasks/{id}/pushNotificationConfigs[/{id}]);
// "" for any other request.
func pushRPCName(method, path string) string {
	i := strings.LastIndex(path, "/pushNotificationConfigs")
	if i < 0 {
		return ""
	}
	one := len(path) > i+len("/pushNotificationConfigs")
	switch {
	case method == "POST" && !one:
		return "CreateTaskPushNotificationConfig"
	case method == "GET" && !one:
		return "ListTaskPushNotificationConfigs"
	case method == "GET":
		return "GetTaskPushNotificationConfig"
	case method == "DELETE":
		return "DeleteTaskPushNotificationConfig"
	}
	return ""
}
