-- Budgets (LLM tokens per day, answers per minute) of a tenant, set by the operator, and of each workspace, set by
-- its tenant's admins. {} is no limit; see @resident/core's budgetSchema for the fields.
alter table tenants add column budget jsonb not null default '{}';
alter table workspaces add column budget jsonb not null default '{}';
