// Package oidctest runs a real OAuth 2.0 / OpenID Connect provider on
// loopback for a2atop's auth tests: the OpenID Provider of
// github.com/zitadel/oidc/v3 (pkg/op), with an in-memory storage adapted
// from that module's example server (example/server/storage), serving
// the client credentials grant, the device authorization grant, refresh
// tokens (rotated, revocable) and JWT access tokens of a lifetime the
// test chooses; and Guard, the resource-server side an A2A test agent puts
// in front of its handler, which accepts only tokens the provider signed
// (checked against its JWKS) that have not expired.
//
// It is for tests only. It may import the standard library,
// zitadel/oidc, go-jose and golang.org/x packages; no a2atop package.
package oidctest
