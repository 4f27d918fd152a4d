/**
 * The age-assurance module's face: who is age-assured (credit card check through Stripe, a
 * manual check by staff), and the gate the tools ask before anything is stored or charged.
 *
 * Above accounts, billing (it reuses Stripe's client options) and audit (it writes every check
 * and refusal to the activity log); below generation, which asks it before a job is accepted.
 */
export { AgeAssuranceModule } from './age-assurance.module';
export { AgeAssuranceService } from './age-assurance.service';
