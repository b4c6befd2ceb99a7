; Typed gripper (IPC 1998) with a negative precondition instead of (free ?g).
(define (domain gripper)
  (:requirements :strips :typing :negative-preconditions :equality)
  (:types room ball gripper - object)
  (:predicates (at-robby ?r - room) (at ?b - ball ?r - room)
               (carry ?b - ball ?g - gripper) (busy ?g - gripper))
  (:action move
    :parameters (?from ?to - room)
    :precondition (and (at-robby ?from) (not (= ?from ?to)))
    :effect (and (at-robby ?to) (not (at-robby ?from))))
  (:action pick
    :parameters (?b - ball ?r - room ?g - gripper)
    :precondition (and (at ?b ?r) (at-robby ?r) (not (busy ?g)))
    :effect (and (carry ?b ?g) (busy ?g) (not (at ?b ?r))))
  (:action drop
    :parameters (?b - ball ?r - room ?g - gripper)
    :precondition (and (carry ?b ?g) (at-robby ?r))
    :effect (and (at ?b ?r) (not (busy ?g)) (not (carry ?b ?g)))))
