package yakor

import "context"

type tenantKey struct{}

// WithTenant returns ctx naming the tenant its database work acts for. The
// database enforces it: connections of the service role see and write only
// that tenant's rows (row-level security), so a query that forgot its
// tenant filter finds nothing rather than another tenant's data. Every
// entry point sets it once: the HTTP layer from the caller's key, a job
// from its arguments.
func WithTenant(ctx context.Context, tenantID string) context.Context {
	return context.WithValue(ctx, tenantKey{}, tenantID)
}

// TenantFrom returns the tenant ctx acts for, if any.
func TenantFrom(ctx context.Context) (string, bool) {
	t, ok := ctx.Value(tenantKey{}).(string)
	return t, ok && t != ""
}

// Context returns ctx acting for s's tenant (WithTenant).
func (s Scope) Context(ctx context.Context) context.Context {
	return WithTenant(ctx, s.TenantID)
}
