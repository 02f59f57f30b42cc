-- A skill records who created it: a developer may change or delete only their own (docs/api.md, Roles).
-- Skills from before have no owner: operators and admins only.
ALTER TABLE "Skill" ADD COLUMN "ownerId" TEXT;
