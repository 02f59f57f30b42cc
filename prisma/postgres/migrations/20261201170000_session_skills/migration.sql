-- Skills that govern (docs/tools.md, context): how a skill may be activated, and which are active per session.
ALTER TABLE "Skill" ADD COLUMN "activation" TEXT NOT NULL DEFAULT 'model';

-- CreateTable
CREATE TABLE "SessionSkill" (
    "sessionId" TEXT NOT NULL,
    "skillName" TEXT NOT NULL,
    "contentHash" TEXT NOT NULL,
    "activatedBy" TEXT NOT NULL,
    "activatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SessionSkill_pkey" PRIMARY KEY ("sessionId","skillName")
);
