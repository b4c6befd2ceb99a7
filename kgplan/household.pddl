; The household world (ALFWorld-style, see ../envbridge/household) as a PDDL
; domain for L3M+P (seed 003 Sec. II-A, IV-A): every predicate here is one
; kind of triplet in the knowledge graph. Binary predicates are relation
; triplets (subject, relation, object); unary ones are property triplets
; (subject, property, true|false). Class lists follow ../shared/ALFWORLD-FACTS.md.
;
; Conventions: "you" is the agent, "middle-of-room" where it starts. A
; receptacle whose contents can be reached is (opened ...): openable ones only
; after "open", all others always. "in" stands for the game's "in/on".
(define (domain household)
  (:requirements :strips :typing :negative-preconditions :equality)
  (:types
    location item agent - object
    receptacle - location
    portable lamp - item
    armchair bathtubbasin bed cabinet cart coffeemachine coffeetable countertop
    desk diningtable drawer dresser fridge garbagecan handtowelholder
    laundryhamper microwave ottoman safe shelf sidetable sinkbasin sofa
    stoveburner tvstand toaster toilet toiletpaperhanger towelholder - receptacle
    desklamp floorlamp - lamp
    alarmclock apple baseballbat basketball book bowl box bread butterknife
    candle cd cellphone cloth creditcard cup dishsponge egg fork glassbottle
    handtowel kettle keychain knife ladle laptop lettuce mug newspaper pan
    papertowel pen pencil peppershaker pillow plate plunger pot potato
    remotecontrol saltshaker soapbar soapbottle spatula spoon spraybottle statue
    tennisracket tissuebox toiletpaper toiletpaperroll tomato towel vase watch
    wateringcan winebottle - portable)
  (:constants you - agent middle-of-room - location)
  (:predicates
    (at ?a - agent ?l - location)
    (in ?i - item ?r - receptacle)
    (holding ?a - agent ?o - portable)
    (handempty ?a - agent)
    (openable ?r - receptacle)
    (opened ?r - receptacle)
    (clean ?o - portable)
    (hot ?o - portable)
    (cool ?o - portable)
    (toggled ?l - lamp))

  ; go to {recep}
  (:action goto
    :parameters (?a - agent ?from - location ?to - receptacle)
    :precondition (and (at ?a ?from) (not (= ?from ?to)))
    :effect (and (at ?a ?to) (not (at ?a ?from))))

  ; open {recep}
  (:action open
    :parameters (?a - agent ?r - receptacle)
    :precondition (and (at ?a ?r) (openable ?r) (not (opened ?r)))
    :effect (opened ?r))

  ; close {recep}
  (:action close
    :parameters (?a - agent ?r - receptacle)
    :precondition (and (at ?a ?r) (openable ?r) (opened ?r))
    :effect (not (opened ?r)))

  ; take {obj} from {recep}
  (:action take
    :parameters (?a - agent ?o - portable ?r - receptacle)
    :precondition (and (at ?a ?r) (in ?o ?r) (opened ?r) (handempty ?a))
    :effect (and (holding ?a ?o) (not (in ?o ?r)) (not (handempty ?a))))

  ; put {obj} in/on {recep}
  (:action put
    :parameters (?a - agent ?o - portable ?r - receptacle)
    :precondition (and (at ?a ?r) (holding ?a ?o) (opened ?r))
    :effect (and (in ?o ?r) (handempty ?a) (not (holding ?a ?o))))

  ; clean {obj} with {recep}
  (:action clean
    :parameters (?a - agent ?o - portable ?r - sinkbasin)
    :precondition (and (at ?a ?r) (holding ?a ?o))
    :effect (clean ?o))

  ; heat {obj} with {recep}
  (:action heat
    :parameters (?a - agent ?o - portable ?r - microwave)
    :precondition (and (at ?a ?r) (holding ?a ?o))
    :effect (and (hot ?o) (not (cool ?o))))

  ; cool {obj} with {recep}
  (:action cool
    :parameters (?a - agent ?o - portable ?r - fridge)
    :precondition (and (at ?a ?r) (holding ?a ?o))
    :effect (and (cool ?o) (not (hot ?o))))

  ; use {lamp}
  (:action use
    :parameters (?a - agent ?l - lamp ?r - receptacle)
    :precondition (and (at ?a ?r) (in ?l ?r))
    :effect (toggled ?l)))
