-- Skills that govern (docs/tools.md, context): how a skill may be activated (activation), and which are active per session.
-- CreateTable
CREATE TABLE "SessionSkill" (
    "sessionId" TEXT NOT NULL,
    "skillName" TEXT NOT NULL,
    "contentHash" TEXT NOT NULL,
    "activatedBy" TEXT NOT NULL,
    "activatedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,

    PRIMARY KEY ("sessionId", "skillName")
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Skill" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "allowedTools" TEXT NOT NULL DEFAULT '[]',
    "contentHash" TEXT NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 1,
    "ownerId" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    "activation" TEXT NOT NULL DEFAULT 'model'
);
INSERT INTO "new_Skill" ("allowedTools", "body", "contentHash", "createdAt", "description", "id", "name", "ownerId", "updatedAt", "version") SELECT "allowedTools", "body", "contentHash", "createdAt", "description", "id", "name", "ownerId", "updatedAt", "version" FROM "Skill";
DROP TABLE "Skill";
ALTER TABLE "new_Skill" RENAME TO "Skill";
CREATE UNIQUE INDEX "Skill_name_key" ON "Skill"("name");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

