package sdktest

import (
	"net/http"
	"strings"
	"sync/atomic"
)

// GETOnlySubscribe makes a real SDK REST server take :subscribe as the
// proto's HTTP binding says, GET only: a POST is answered 405. It counts
// the GETs.
func GETOnlySubscribe(gets *atomic.Int32) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasSuffix(r.URL.Path, ":subscribe") {
				if r.Method == http.MethodPost {
					http.Error(w, "use GET", http.StatusMethodNotAllowed)
					return
				}
				gets.Add(1)
			}
			next.ServeHTTP(w, r)
		})
	}
}

// RequireBearer answers 401 to every request whose Authorization is not
// "Bearer "+token.
func RequireBearer(token string) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer "+token {
				http.Error(w, "unauthorized", http.StatusUnauthorized)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}
