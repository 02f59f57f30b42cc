-- A function tool's approval names the script its call runs and that script's sha256 as bound, so an operator can trust it
-- from the approval (docs/api.md, Approvals).
ALTER TABLE "Approval" ADD COLUMN     "scriptPath" TEXT,
ADD COLUMN     "scriptSha256" TEXT;
