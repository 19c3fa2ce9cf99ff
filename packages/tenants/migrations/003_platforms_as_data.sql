-- Platforms are plugins: the service says which it serves (TenantsOptions.platforms), so adding one needs no
-- migration. (002 is left to the token lifecycle.)
alter table workspaces drop constraint if exists workspaces_platform_check;
