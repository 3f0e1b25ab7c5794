package edge

import (
	"net/http"
	"strings"
)

// subscribeGET retries REST SubscribeToTask with GET when a POST is
// refused with 405. The spec's method table says POST
// /tasks/{id}:subscribe, the HTTP binding in its proto says GET
// (A2A#1574, open), and the SDK (github.com/a2aproject/a2a-go/v2 v2.4.0,
// a2aclient/rest.go SubscribeToTask) sends POST only, so an agent that
// follows the proto answers it 405. a2a-python's 0.3 client retries the
// same way (a2a-python#843). Both attempts pass through the layers below:
// the raw view shows the POST and its 405, then the GET.
// TestSDKSubscribesWithPOSTOnly (subscribe_get_test.go, beside this
// file, the bare SDK against a real SDK server, then the same client
// over this layer) pins the SDK's side: the day it fails, the SDK falls
// back itself and this file and its test go, with
// TestRESTSubscribeFallsBackToGET (a2aclient/subscribe_get_test.go),
// which checks the fix through a2aclient's watcher.
type subscribeGET struct{ next http.RoundTripper }

// SubscribeGETLayer is the fix, above next.
func SubscribeGETLayer(next http.RoundTripper) http.RoundTripper { return subscribeGET{next} }

// RoundTrip implements http.RoundTripper.
func (t subscribeGET) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusMethodNotAllowed || req.Method != http.MethodPost ||
		!strings.HasSuffix(req.URL.Path, ":subscribe") {
		return resp, err
	}
	resp.Body.Close()
	get := req.Clone(req.Context())
	get.Method, get.Body, get.GetBody, get.ContentLength = http.MethodGet, nil, nil, 0
	get.Header.Del("Content-Type")
	return t.next.RoundTrip(get)
}
