import type { PlanTypeValue } from './vocabulary.ts';

/**
 * What each plan type entitles a tenant to: the AI runtime's limits and switches, support and
 * domains, and the trial a new tenant gets. A tenant's limits start from here and live on its
 * tenant item (a SystemAdmin may override them); billing sells these plans at its prices
 * (areas/billing/plan-catalog.ts) and moves a tenant's limits with its subscription.
 */
export const PlanType = { Starter: 1, Professional: 2, Enterprise: 3 } as const satisfies Record<string, PlanTypeValue>;

export interface PlanFeatures {
  maxAgents: number;
  maxKnowledgeBases: number;
  maxWidgetIntegrations: number;
  maxTokensPerMonth: number;
  hasPrioritySupport: boolean;
  hasDedicatedSupport: boolean;
  customDomainEnabled: boolean;
  aiAgentsEnabled: boolean;
  riskAssessmentEnabled: boolean;
}

export interface PlanEntitlement {
  features: PlanFeatures;
  isTrialEligible: boolean;
  trialDays: number;
}

export const PLAN_ENTITLEMENTS: Readonly<Record<PlanTypeValue, PlanEntitlement>> = {
  [PlanType.Starter]: {
    features: {
      maxAgents: 1,
      maxKnowledgeBases: 1,
      maxWidgetIntegrations: 1,
      maxTokensPerMonth: 100_000,
      hasPrioritySupport: false,
      hasDedicatedSupport: false,
      customDomainEnabled: false,
      aiAgentsEnabled: true,
      riskAssessmentEnabled: false,
    },
    isTrialEligible: true,
    trialDays: 14,
  },
  [PlanType.Professional]: {
    features: {
      maxAgents: 5,
      maxKnowledgeBases: 5,
      maxWidgetIntegrations: 5,
      maxTokensPerMonth: 1_000_000,
      hasPrioritySupport: true,
      hasDedicatedSupport: false,
      customDomainEnabled: true,
      aiAgentsEnabled: true,
      riskAssessmentEnabled: true,
    },
    isTrialEligible: true,
    trialDays: 14,
  },
  [PlanType.Enterprise]: {
    features: {
      maxAgents: 50,
      maxKnowledgeBases: 50,
      maxWidgetIntegrations: 50,
      maxTokensPerMonth: 10_000_000,
      hasPrioritySupport: true,
      hasDedicatedSupport: true,
      customDomainEnabled: true,
      aiAgentsEnabled: true,
      riskAssessmentEnabled: true,
    },
    isTrialEligible: false,
    trialDays: 0,
  },
};

/** A plan type's features; an unknown or missing type (a record stored before plans) is the Starter's. */
export const planFeatures = (planType: number | undefined | null): PlanFeatures | undefined =>
  PLAN_ENTITLEMENTS[(planType ?? PlanType.Starter) as PlanTypeValue]?.features;
