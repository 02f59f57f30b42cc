-- An allow rule for a function tool names the sha256 of the script it trusts (docs/tools.md, Workspace function tools).
ALTER TABLE "PolicyRule" ADD COLUMN "scriptSha256" TEXT;
